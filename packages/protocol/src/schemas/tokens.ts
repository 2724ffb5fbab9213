/** Bearer tokens: the caller's grant, minting (`connect`), listing and revoking. */
import { z } from 'zod';
import { idSchema, nameSchema, scopeSchema, timestampSchema } from './common.ts';

export const tokenKindSchema = z.enum(['owner', 'app', 'node']);

/** A token's scope list; `null` for the owner, who holds everything. */
const scopeListOrAll = z.array(z.string()).nullable().describe('null = everything (owner)');

export const grantResponseSchema = z.object({
  kind: tokenKindSchema,
  app_id: z.string().nullable(),
  scopes: scopeListOrAll,
  token_id: idSchema('token'),
  expires_at: timestampSchema.nullable(),
});
/** What a token may do; `scopes` is `null` for the owner (everything). */
export type GrantInfo = z.output<typeof grantResponseSchema>;

/** A stored token as listed; never its secret. */
export const tokenSchema = z.object({
  id: idSchema('token'),
  kind: tokenKindSchema,
  app_id: z.string().nullable(),
  scopes: scopeListOrAll,
  created_at: timestampSchema,
  expires_at: timestampSchema.nullable(),
  revoked_at: timestampSchema.nullable(),
  last_used_at: timestampSchema.nullable(),
});

/** A token as the API answers it (`GET /v1/tokens`, `DELETE /v1/tokens/{id}`). */
export type Token = z.output<typeof tokenSchema>;

export const tokenParamsSchema = z.object({ id: idSchema('token') });

/** Ten years: long enough for any deliberate choice, short enough to stay a finite timestamp. */
export const MAX_TOKEN_LIFETIME_S = 10 * 365 * 24 * 3600;

/**
 * `POST /v1/connect`. Structure only; the daemon then applies `parseScopeList` to `scopes` and
 * refuses `scopes` without `app_id` (both 400 `invalid_request`, DESIGN §5).
 */
export const connectBodySchema = z.strictObject({
  app_id: nameSchema.optional().describe('mint a scoped app token for this app'),
  scopes: z.array(scopeSchema).max(256).optional().describe('requires app_id'),
  expires_in_s: z.number().int().min(1).max(MAX_TOKEN_LIFETIME_S).optional(),
  host: z.string().min(1).max(253).optional().describe('TCP listener host (default 127.0.0.1)'),
  port: z.number().int().min(0).max(65535).optional().describe('TCP listener port; 0 = any free'),
});

export const connectResponseSchema = z.object({
  base_url: z.url(),
  token: z.string().describe('the bearer secret; shown only in this answer'),
  token_id: idSchema('token'),
  app_id: z.string().nullable(),
  scopes: scopeListOrAll,
  expires_at: timestampSchema.nullable(),
});

/** The answer of `POST /v1/connect`: where to reach the daemon and the new token. */
export type Connection = z.output<typeof connectResponseSchema>;
