/**
 * `files.read`, `files.write`, `files.list` (docs/api-v1.md "Files"): host files by absolute
 * path. The daemon resolves each path's realpath and checks it against the caller's
 * `svc:files:<read|rw>:user:<dir>` scopes; the owner reaches every path.
 */
import { z } from 'zod';
import { absolutePathSchema, queryInt, timestampSchema } from './common.ts';

/** A read answers this many bytes when `max_bytes` is not given. */
export const FILES_READ_DEFAULT_BYTES = 262_144;
/** The most one read answers: reads page with `offset`. */
export const FILES_READ_MAX_BYTES = 1_048_576;
/** The largest file a write takes, decoded (SPEC Limits: refused, not truncated). */
export const FILES_WRITE_MAX_BYTES = 1_048_576;
export const FILES_LIST_DEFAULT_LIMIT = 1000;
export const FILES_LIST_MAX_LIMIT = 10_000;

export const fileEncodingSchema = z
  .enum(['utf8', 'base64'])
  .describe('utf8: the text as is; base64: the bytes, base64-encoded');

export const filesReadQuerySchema = z.object({
  path: absolutePathSchema,
  offset: queryInt(0, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('the byte to start at (default 0)'),
  max_bytes: queryInt(1, FILES_READ_MAX_BYTES)
    .optional()
    .describe(`the most bytes answered (default ${FILES_READ_DEFAULT_BYTES})`),
});
export type FilesReadQuery = z.output<typeof filesReadQuerySchema>;

export const filesReadResultSchema = z.object({
  path: z.string().describe('the path as given'),
  size: z.number().int().nonnegative().describe('the size of the whole file in bytes'),
  offset: z.number().int().nonnegative(),
  content: z
    .string()
    .describe(
      'the slice: UTF-8 text when it is valid UTF-8 (a character cut by max_bytes is left for the next read), else base64',
    ),
  encoding: fileEncodingSchema,
  truncated: z.boolean().describe('bytes remain after this slice'),
});
/** `{ path, size, offset, content, encoding: 'utf8' | 'base64', truncated }`. */
export type FileSlice = z.output<typeof filesReadResultSchema>;

export const filesWriteBodySchema = z.strictObject({
  path: absolutePathSchema,
  content: z.string().describe(`at most ${FILES_WRITE_MAX_BYTES} bytes once decoded (else 413)`),
  encoding: fileEncodingSchema.optional().describe('how content is encoded (default utf8)'),
  create_parents: z
    .boolean()
    .optional()
    .describe('make missing parent directories (default false: 404 when the parent is missing)'),
});
export type FilesWriteBody = z.output<typeof filesWriteBodySchema>;

export const filesWriteResultSchema = z.object({
  path: z.string().describe('the path as given'),
  size: z.number().int().nonnegative().describe('bytes written'),
});
export type FileWriteResult = z.output<typeof filesWriteResultSchema>;

export const filesListQuerySchema = z.object({
  path: absolutePathSchema,
  limit: queryInt(1, FILES_LIST_MAX_LIMIT)
    .optional()
    .describe(`the most entries answered (default ${FILES_LIST_DEFAULT_LIMIT})`),
});
export type FilesListQuery = z.output<typeof filesListQuerySchema>;

export const fileEntrySchema = z.object({
  name: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']).describe('a symlink is not followed'),
  size: z.number().int().nonnegative(),
  modified_at: timestampSchema,
});

export const filesListResultSchema = z.object({
  path: z.string().describe('the path as given'),
  entries: z.array(fileEntrySchema).describe('sorted by name'),
  truncated: z.boolean().describe('the directory holds more entries than answered'),
});
/** `{ path, entries: [{ name, type, size, modified_at }], truncated }`. */
export type FileList = z.output<typeof filesListResultSchema>;
