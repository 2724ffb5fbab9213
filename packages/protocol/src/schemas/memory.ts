/**
 * Memory (docs/api-v1.md "Memory"): the person's knowledge and preference documents, an app's
 * own and a node's own, each a text document at a path inside a space. Reads are filtered by the
 * caller (SPEC "Scope vocabulary", rules 2 and 3); writes are checked against its scopes.
 */
import { z } from 'zod';
import { UNSHOWABLE, UNSHOWABLE_CLASS } from '../text.ts';
import { listQuerySchema, queryInt, timestampSchema } from './common.ts';
import { MEMORY_PATH_MAX, MEMORY_SPACE_PATTERN, memoryPathProblem } from './memory-space.ts';
// One grammar of media types (RFC 9110) wherever svc takes one.
import { mediaTypeSchema } from './uploads.ts';
import { checkedAs } from './wire-form.ts';

export const MEMORY_KINDS = ['knowledge', 'preference'] as const;
export const MEMORY_PRIVACY = ['public', 'friends', 'private'] as const;
/** The largest document content, in UTF-8 bytes (larger is refused with 413). */
export const MEMORY_CONTENT_MAX_BYTES = 262_144;
export const MEMORY_TITLE_MAX = 200;
/** The largest `if_version` (and so version) taken. */
const VERSION_MAX = Number.MAX_SAFE_INTEGER;

export const memoryKindSchema = z.enum(MEMORY_KINDS);
export const memoryPrivacySchema = z
  .enum(MEMORY_PRIVACY)
  .describe(
    "who may read a document of the person's space: public (any token), friends and private (the owner and a grant holding svc:memory:manage:user)",
  );

export const memorySpaceSchema = z
  .string()
  .regex(MEMORY_SPACE_PATTERN, "must be 'user', 'app:<id>', 'app:<id>:profile:<p>' or 'node:<id>'")
  .describe(
    "'user' (the person's documents), 'app:<id>' (an app's; ':profile:<p>' narrows to one profile) or 'node:<nd_…>' (a node's own)",
  );

/**
 * One segment of a document path, for the OpenAPI document: not empty, `.` or `..` (a segment
 * starting with a dot has a second character that is not one, or a third), no `/` or control.
 * Written without a lookahead, which RE2 lacks, and linear: the alternatives part at the first
 * two characters.
 */
const PATH_SEGMENT = (() => {
  const c = `[^/${UNSHOWABLE_CLASS}]`;
  const first = `[^./${UNSHOWABLE_CLASS}]`;
  return `(?:${first}${c}*|\\.${first}${c}*|\\.\\.${c}+)`;
})();

export const memoryPathSchema = checkedAs(
  z
    .string()
    .superRefine((path, ctx) => {
      const problem = memoryPathProblem(path);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: `path ${problem}` });
    })
    .describe(
      `a relative path of '/'-separated segments, e.g. prefs/food.md: no empty, '.' or '..' segment, no control character, at most ${MEMORY_PATH_MAX} characters`,
    ),
  {
    minLength: 1,
    maxLength: MEMORY_PATH_MAX,
    pattern: `^${PATH_SEGMENT}(?:/${PATH_SEGMENT})*$`,
  },
);

/** A document without its content: what lists answer. */
export const memoryDocumentSummarySchema = z.object({
  space: z.string(),
  path: z.string(),
  title: z.string(),
  kind: memoryKindSchema,
  privacy: memoryPrivacySchema,
  media_type: z.string().nullable().describe('null when none was given'),
  size: z.number().int().nonnegative().describe('the content in UTF-8 bytes'),
  version: z
    .number()
    .int()
    .positive()
    .describe('1 when created, one more at each write; what if_version compares'),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
/** A document as lists answer it: everything but the content. */
export type MemoryDocumentSummary = z.output<typeof memoryDocumentSummarySchema>;

export const memoryDocumentSchema = memoryDocumentSummarySchema.extend({
  content: z.string(),
});
/** A document with its content: `{ space, path, title, kind, privacy, media_type, size, version, content, … }`. */
export type MemoryDocument = z.output<typeof memoryDocumentSchema>;

export const memoryListQuerySchema = listQuerySchema.extend({
  space: memorySpaceSchema.optional().describe("default 'user'"),
  prefix: z
    .string()
    .min(1)
    .max(MEMORY_PATH_MAX)
    .optional()
    .describe('only paths starting with this text (prefs/ for a folder)'),
  kind: memoryKindSchema.optional(),
  privacy: memoryPrivacySchema.optional(),
  // A cursor is the last path of the page before, so it is as long as a path may be.
  after: z
    .string()
    .min(1)
    .max(MEMORY_PATH_MAX)
    .optional()
    .describe('the next_cursor of the previous page'),
});
export type MemoryListQuery = z.output<typeof memoryListQuerySchema>;

export const memoryGetQuerySchema = z.object({
  space: memorySpaceSchema.optional().describe("default 'user'"),
  path: memoryPathSchema,
});
export type MemoryGetQuery = z.output<typeof memoryGetQuerySchema>;

const ifVersionDescription =
  'the version the document must have now (0: it must not exist yet); else 409 conflict';

export const memoryWriteBodySchema = z.strictObject({
  space: memorySpaceSchema.optional().describe("default 'user'"),
  path: memoryPathSchema,
  title: checkedAs(
    z
      .string()
      .min(1)
      .max(MEMORY_TITLE_MAX)
      .refine(
        (title) => !UNSHOWABLE.test(title),
        'must not hold a control or bidirectional character',
      ),
    { pattern: `^[^${UNSHOWABLE_CLASS}]*$` },
  )
    .optional()
    .describe("default: kept, or for a new document the path's last segment"),
  kind: memoryKindSchema.optional().describe("default: kept, or 'knowledge'"),
  privacy: memoryPrivacySchema
    .optional()
    .describe(
      "default: kept, or for a new document the most private level the writer can read back ('private', or 'public' for a writer of the person's space without svc:memory:manage:user)",
    ),
  media_type: mediaTypeSchema.nullable().optional().describe('default: kept; null clears it'),
  content: z.string().describe(`at most ${MEMORY_CONTENT_MAX_BYTES} bytes as UTF-8 (else 413)`),
  if_version: z.number().int().min(0).max(VERSION_MAX).optional().describe(ifVersionDescription),
});
export type MemoryWriteBody = z.output<typeof memoryWriteBodySchema>;

export const memoryDeleteQuerySchema = z.object({
  space: memorySpaceSchema.optional().describe("default 'user'"),
  path: memoryPathSchema,
  if_version: queryInt(0, VERSION_MAX).optional().describe(ifVersionDescription),
});

export const memoryDeleteResultSchema = z.object({
  space: z.string(),
  path: z.string(),
  deleted: z.literal(true),
});

/** The payload of a `memory.document` event: the document without its content, and who acted. */
export const memoryDocumentEventSchema = memoryDocumentSummarySchema.extend({
  action: z.enum(['created', 'updated', 'deleted']),
  by: z.object({
    kind: z.enum(['owner', 'app', 'node']),
    app_id: z.string().nullable(),
    node_id: z.string().nullable(),
  }),
});
