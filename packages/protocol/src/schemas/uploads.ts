/**
 * Uploads and attachment links (docs/api-v1.md "Uploads and attachments"): an app hands the
 * daemon a file (`upl_…`, stored under `SVC_HOME/uploads/`), and asks for a short-lived
 * capability URL on the TCP listener that serves its bytes without a bearer.
 */
import { z } from 'zod';
import { UNSHOWABLE, UNSHOWABLE_CLASS } from '../text.ts';
import { idSchema, queryInt, timestampSchema } from './common.ts';
import { checkedAs } from './wire-form.ts';

/** The largest upload taken, decoded: the same 1 MiB as a `files.write` (SPEC Limits). */
export const UPLOAD_MAX_BYTES = 1_048_576;
/** An attachment link lives this long unless asked otherwise. */
export const ATTACHMENT_TTL_DEFAULT_S = 300;
/** The longest an attachment link may live: an hour. */
export const ATTACHMENT_TTL_MAX_S = 3600;
/** The media type of an upload that names none. */
export const DEFAULT_MEDIA_TYPE = 'application/octet-stream';

/**
 * A file's name, not a path: no `/`, no control character, not `.` or `..`. It travels back in a
 * `Content-Disposition` header, so nothing in it may break a header line.
 */
export const uploadFilenameSchema = checkedAs(
  z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\]+$/u, 'must be a file name: no / or \\')
    .refine((name) => !UNSHOWABLE.test(name), 'must not hold a control or bidirectional character')
    .refine((name) => name !== '.' && name !== '..', 'must be a file name, not . or ..')
    .describe('the file name (no directory)'),
  { pattern: `^[^/\\\\${UNSHOWABLE_CLASS}]+$`, not: { enum: ['.', '..'] } },
);

/** RFC 9110 §5.6.2: a token is one or more `tchar`. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]{1,127}";
/** §5.6.3: optional whitespace is spaces and tabs only, never CR, LF or a Unicode space. */
const OWS = '[ \\t]*';
/**
 * §5.6.4: a quoted string holds tab, space and visible ASCII but `"` and `\`, or a quoted pair
 * (`\` before tab, space or visible ASCII). The `obs-text` bytes (0x80–0xFF) are left out, so a
 * stored type is always a header value any HTTP stack sends unchanged.
 */
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\t\\x20-\\x7e])*"';
/**
 * `type/subtype` with optional `; name=value` parameters (RFC 9110 §8.3.1, §5.6.6). A stored type
 * becomes the `Content-Type` of the attachment link's answer, so nothing in it may break a
 * header line.
 */
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:${OWS};${OWS}(?:${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*$`,
);

export const mediaTypeSchema = z
  .string()
  .max(255)
  .regex(MEDIA_TYPE, 'must be a media type such as text/plain or image/png')
  .describe(`a media type (default ${DEFAULT_MEDIA_TYPE})`);

export const uploadSchema = z.object({
  id: idSchema('upload'),
  filename: z.string(),
  media_type: z.string(),
  size: z.number().int().nonnegative().describe('bytes'),
  sha256: z.string().describe('hex SHA-256 of the bytes'),
  app_id: z.string().nullable().describe('the app that uploaded it; null = the owner'),
  created_at: timestampSchema,
});
/** `{ id, filename, media_type, size, sha256, app_id, created_at }`. */
export type Upload = z.output<typeof uploadSchema>;

export const uploadCreateBodySchema = z.strictObject({
  filename: uploadFilenameSchema,
  media_type: mediaTypeSchema.optional(),
  content_base64: z
    .string()
    .describe(
      `the bytes, base64 (standard alphabet); at most ${UPLOAD_MAX_BYTES} decoded (else 413)`,
    ),
});
export type UploadCreateBody = z.output<typeof uploadCreateBodySchema>;

/** `POST /v1/uploads/raw`: the body is the bytes themselves; name and type come in the query. */
export const uploadRawQuerySchema = z.object({
  filename: uploadFilenameSchema,
  media_type: mediaTypeSchema.optional(),
});

export const uploadParamsSchema = z.object({ id: idSchema('upload') });

export const uploadDeleteResultSchema = z.object({
  id: idSchema('upload'),
  deleted: z.literal(true),
});

export const attachmentLinkQuerySchema = z.object({
  upload_id: idSchema('upload'),
  ttl_s: queryInt(1, ATTACHMENT_TTL_MAX_S)
    .optional()
    .describe(`seconds the link works (default ${ATTACHMENT_TTL_DEFAULT_S})`),
});
export type AttachmentLinkQuery = z.output<typeof attachmentLinkQuerySchema>;

export const attachmentLinkSchema = z.object({
  url: z
    .url()
    .describe(
      "the TCP listener's capability URL: serves the bytes, without a bearer, until expires_at",
    ),
  expires_at: timestampSchema,
});
/** `{ url, expires_at }`. */
export type AttachmentLink = z.output<typeof attachmentLinkSchema>;

/**
 * A part of an attachment link, as the content route reads it: a bounded plain string whose every
 * fault (too long, absent) reads as absent, never a 422. A link's parts are a credential: whatever
 * is wrong with one (malformed, forged, expired, of a deleted upload) is answered with the same
 * 404 by the service, never a hint which part or check failed.
 */
const linkPart = (max: number) => z.string().max(max).optional().catch(undefined);

export const attachmentContentParamsSchema = z.object({
  id: linkPart(64).describe('the upload id the link was made for'),
});

export const attachmentContentQuerySchema = z.object({
  expires: linkPart(32).describe('when the link ends, in seconds since the epoch'),
  sig: linkPart(128).describe("the daemon's signature of the upload and expires"),
});

/** The bytes of an attachment, as the content route answers them. */
export const attachmentContentSchema = z.string().describe("the upload's bytes, as its media type");
