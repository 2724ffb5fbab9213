/** Building blocks every DTO shares (DESIGN §6): ids, timestamps, scopes, lists, the error envelope. */
import { z } from 'zod';
import { ERROR_STATUS } from '../errors.ts';
import { ID_PREFIXES, type IdKind } from '../ids.ts';
import { SCOPE_PATTERN } from '../scopes/grammar.ts';
import { MAX_SCOPE_LENGTH } from '../scopes/parse.ts';
import { checkedAs, shownAs } from './wire-form.ts';

/** An id of one kind: its prefix and a ULID. */
export function idSchema(kind: IdKind) {
  return z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES[kind]}[0-7][0-9A-HJKMNP-TV-Z]{25}$`))
    .describe(`${kind} id: '${ID_PREFIXES[kind]}' followed by a ULID`);
}

/** Provider, profile and app names. */
export const nameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/)
  .describe('a lowercase letter, then up to 62 of a-z, 0-9, -');

/** RFC 3339 date-time in UTC, e.g. `2026-01-02T03:04:05.678Z`. */
export const timestampSchema = z.iso.datetime();

/**
 * One scope string. Only its length is checked here; the vocabulary is checked by
 * `parseScopeList`, whose reasons (legacy names, `svc:act` without `svc:llm`) are the answer.
 * The OpenAPI document carries the vocabulary's grammar, so a client can check it before sending.
 */
export const scopeSchema = checkedAs(
  z.string().min(1).max(MAX_SCOPE_LENGTH).describe('a scope string (docs/api-v1.md, "Scopes")'),
  { pattern: SCOPE_PATTERN },
);

/** An absolute host path (the daemon resolves and checks it; no NUL byte). */
export const absolutePathSchema = z
  .string()
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is refused; `\x00` is how every engine reads it (not `\0`).
  .regex(/^\/[^\x00]*$/)
  .max(4096)
  .describe('an absolute path');

/** The longest environment value taken: a profile env store's, or a bash call's (the CLI checks it). */
export const ENV_VALUE_MAX_LENGTH = 32_768;

/**
 * Text that becomes a process's argument or environment: no NUL, which no C string can hold
 * (Node's `spawn` throws on one, quoting the value, and the value may be a secret).
 */
export function processText(max: number) {
  return (
    z
      .string()
      .max(max)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is refused; `\x00` is how every engine reads it (not `\0`).
      .regex(/^[^\x00]*$/, 'must not contain a NUL character')
  );
}

/**
 * A query flag: `true` or `false` on the wire, a boolean after parsing; a `boolean` in the
 * OpenAPI document, which clients serialise as those two words.
 */
export const queryBool = shownAs(
  z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .describe('true or false'),
  { type: 'boolean' },
);

/**
 * A non-negative integer carried in a query string: the decimal string is read, the number is
 * the output. The OpenAPI document shows the integer with its bounds, which clients serialise
 * as that decimal string.
 */
export function queryInt(min: number, max: number) {
  return shownAs(
    z
      .string()
      .regex(/^\d{1,16}$/) // Number.MAX_SAFE_INTEGER has 16 digits; `max` refuses the rest
      .transform(Number)
      .pipe(z.number().int().min(min).max(max))
      .describe(`an integer from ${min} to ${max}`),
    { type: 'integer', minimum: min, maximum: max },
  );
}

export const LIST_LIMIT_MAX = 200;

/** `?limit=&after=` of every list (DESIGN §6). */
export const listQuerySchema = z.object({
  limit: queryInt(1, LIST_LIMIT_MAX).optional(),
  after: z.string().min(1).max(200).optional().describe('the next_cursor of the previous page'),
});
export type ListQuery = z.output<typeof listQuerySchema>;

/** `{"data": [...], "has_more", "next_cursor"}`. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
}

/** What `listOf(item)` answers, for items of type `T` (the protocol's test keeps the two equal). */
export interface ListEnvelope<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const okSchema = z.object({ ok: z.literal(true) });

const errorCodes = Object.keys(ERROR_STATUS) as [
  keyof typeof ERROR_STATUS,
  ...(keyof typeof ERROR_STATUS)[],
];

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string().describe(`one of: ${errorCodes.join(', ')}`),
    message: z.string(),
    field: z.string().optional(),
    received: z.unknown().optional(),
    request_id: z.string(),
  }),
});
