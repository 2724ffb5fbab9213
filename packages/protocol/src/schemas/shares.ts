/**
 * Shares (docs/api-v1.md "Shares"): the owner, or a token holding `svc:files:share`, lets an app
 * reach one host path. While a share lives, the app's tokens reach that path through the files
 * routes as if they held `svc:files:<mode>:user:<path>`; a share never exceeds its creator's own
 * files scopes.
 */
import { z } from 'zod';
import {
  absolutePathSchema,
  idSchema,
  listQuerySchema,
  nameSchema,
  timestampSchema,
} from './common.ts';

export const SHARE_MODES = ['read', 'rw'] as const;
/** The longest a share may be made for: a year (it may also never expire). */
export const SHARE_EXPIRES_MAX_S = 31_536_000;

export const shareModeSchema = z
  .enum(SHARE_MODES)
  .describe("'read': files.read and files.list; 'rw': files.write as well");

export const shareSchema = z.object({
  id: idSchema('share'),
  app_id: z.string().describe('the app the path is shared with'),
  path: z.string().describe('the absolute host path, normalized as a scope directory is'),
  mode: shareModeSchema,
  scope: z.string().describe('what the share grants the app: svc:files:<mode>:user:<path>'),
  created_by: z.string().nullable().describe('the app that made it; null = the owner'),
  created_at: timestampSchema,
  expires_at: timestampSchema.nullable().describe('when it stops granting; null = never'),
});
/** `{ id, app_id, path, mode, scope, created_by, created_at, expires_at }`. */
export type Share = z.output<typeof shareSchema>;

export const shareCreateBodySchema = z.strictObject({
  app_id: nameSchema.describe('the app to share with'),
  path: absolutePathSchema,
  mode: shareModeSchema,
  expires_in_s: z
    .number()
    .int()
    .min(1)
    .max(SHARE_EXPIRES_MAX_S)
    .optional()
    .describe('stop granting after this many seconds; default never'),
});
export type ShareCreateBody = z.output<typeof shareCreateBodySchema>;

export const shareListQuerySchema = listQuerySchema.extend({
  after: idSchema('share').optional().describe('the next_cursor of the previous page'),
  app_id: nameSchema.optional().describe('only the shares made to this app'),
});
export type ShareListQuery = z.output<typeof shareListQuerySchema>;

export const shareParamsSchema = z.object({ id: idSchema('share') });

export const shareDeleteResultSchema = z.object({
  id: idSchema('share'),
  deleted: z.literal(true),
});
export type ShareDeleteResult = z.output<typeof shareDeleteResultSchema>;
