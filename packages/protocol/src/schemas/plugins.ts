/**
 * Installed plugins (DESIGN §5, "Plugin install"): what the daemon read from a capability
 * provider's archive. Only the endpoint's origin is the transport; each command keeps its full
 * path (SPEC, "Installing a plugin").
 */
import { z } from 'zod';
import { SPACE_OR_CONTROL } from '../text.ts';
import { nameSchema, timestampSchema } from './common.ts';
import { envNameSchema } from './profiles.ts';
import { checkedAs } from './wire-form.ts';

export const pluginParamsSchema = z.object({ name: nameSchema });

/**
 * A shared token as a header carries it and a plugin built with the kit accepts it: visible
 * ASCII (RFC 6750's b64token lies within), no white space. The installer takes it to read a
 * guarded archive; a broker checks its profile's value before sending it.
 */
export const BEARER_TOKEN_PATTERN = /^[\x21-\x7e]{1,4096}$/;

/** An http(s) URL without credentials, query or fragment: where the handler is mounted. */
export const pluginEndpointSchema = checkedAs(
  z
    .string()
    .max(2000)
    // Stored as given and used as the audience of the tokens the directory signs: a space or a
    // control character, which the URL parser drops, would make an audience no plugin matches.
    .regex(/^[^\s\p{Cc}]+$/u, 'no whitespace or control characters')
    .refine((value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'http:' || url.protocol === 'https:') &&
          url.username === '' &&
          url.password === '' &&
          url.search === '' &&
          url.hash === ''
        );
      } catch {
        return false;
      }
    }, 'an http(s) URL with no credentials, query or fragment')
    .describe('the public URL where the handler is mounted, mount path included'),
  // The same set as the check's `\s\p{Cc}`, written so every regex engine reads it alike.
  { pattern: `^[^${SPACE_OR_CONTROL}]+$` },
);

/** `POST /v1/plugins`: `svc pkg plugin install --endpoint URL --name N [--auth-env NAME]`. */
export const pluginInstallBodySchema = z.strictObject({
  endpoint: pluginEndpointSchema,
  name: nameSchema
    .refine(
      (name) => name !== 'svc',
      "'svc' is reserved: a plugin's scopes '<name>:<group>' would read as svc's own",
    )
    .describe('the plugin name the archive must declare'),
  auth_env: envNameSchema
    .optional()
    .describe(
      "the variable holding the shared token, read by the calling broker from its profile's env store",
    ),
  // RE2 refuses a repetition past 1000, so the document says the length apart.
  token: checkedAs(
    z
      .string()
      .regex(
        BEARER_TOKEN_PATTERN,
        'visible ASCII characters, as a bearer token is (RFC 6750 §2.1)',
      ),
    { pattern: '^[\\x21-\\x7e]+$', maxLength: 4096 },
  )
    .optional()
    .describe('the bearer for fetching a token-guarded archive now; used once, never stored'),
});
export type PluginInstallBody = z.output<typeof pluginInstallBodySchema>;

export const pluginCommandSchema = z.object({
  group: z.string(),
  name: z.string(),
  description: z.string(),
  scope: z.string().describe('`<plugin>:<group>`'),
  streaming: z.boolean(),
  method: z.literal('POST'),
  path: z.string().describe("the command's full path on the endpoint's origin"),
  input: z.record(z.string(), z.unknown()).or(z.boolean()).describe('its input JSON Schema'),
});

export const pluginSchema = z.object({
  name: nameSchema,
  description: z.string(),
  endpoint: z.string().describe('the URL it was installed from'),
  origin: z.string().describe('the transport: the endpoint origin, and nothing else of it'),
  major: z.number().int().positive().nullable().describe('null for an unversioned plugin'),
  supported: z
    .array(z.number().int().positive())
    .nullable()
    .describe("the endpoint's supported majors; null for an unversioned plugin"),
  auth: z.enum(['none', 'token', 'directory']),
  auth_env: envNameSchema.nullable(),
  groups: z.array(z.object({ name: z.string(), description: z.string(), scope: z.string() })),
  commands: z.array(pluginCommandSchema),
  etag: z.string().nullable().describe("the archive's ETag when it was read"),
  installed_at: timestampSchema,
  updated_at: timestampSchema,
});

export type Plugin = z.output<typeof pluginSchema>;

/**
 * `GET /.well-known/jwks.json`: the daemon's directory keys (DESIGN §5, "Directory"), public
 * JWKs a directory-mode plugin verifies the tokens it is called with against.
 */
export const jwksSchema = z.object({
  keys: z.array(
    z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.string() }),
  ),
});

/** A directory key as the owner sees it (never its private half). */
export const directoryKeySchema = z.object({
  kid: z.string().describe('RFC 7638 thumbprint of the public key, as the JWKS names it'),
  state: z
    .enum(['active', 'next', 'retiring'])
    .describe(
      'active signs new tokens; next signs after the next rotation, published ahead; retiring only verifies tokens already signed',
    ),
  created_at: timestampSchema,
  retired_at: timestampSchema.nullable(),
  until: timestampSchema.nullable().describe('when a retiring key leaves the JWKS'),
});

export type DirectoryKey = z.output<typeof directoryKeySchema>;

/** `GET /v1/directory/keys` and the answer of a rotation: the published keys, the active first. */
export const directoryKeysSchema = z.object({ keys: z.array(directoryKeySchema) });

/** `POST /v1/directory/keys/rotate` */
export const directoryRotateBodySchema = z.strictObject({
  revoke_previous: z
    .boolean()
    .optional()
    .describe(
      'after a leak: two new keys, and the JWKS drops every other at once (tokens they signed fail once a plugin refetches the set)',
    ),
});

/** `POST …/broker/plugin-token`: a token for one call of a directory-mode plugin's group. */
export const pluginTokenBodySchema = z.strictObject({
  plugin: nameSchema,
  group: nameSchema,
});

export const pluginTokenSchema = z.object({
  token: z.string().describe('an ES256 JWT the daemon signed, for one call'),
  expires_at: timestampSchema,
});
