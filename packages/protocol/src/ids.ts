/**
 * Resource ids: a type prefix plus a ULID (DESIGN §6), so an id names its kind in logs and a
 * mixed-up argument fails loudly instead of matching nothing. ULIDs sort by creation time, which
 * keeps `?after=` cursors stable.
 */
import { monotonicFactory } from 'ulid';

export const ID_PREFIXES = {
  node: 'nd_',
  run: 'run_',
  cron: 'cron_',
  human_request: 'hr_',
  ticket: 'tk_',
  job: 'job_',
  object: 'obj_',
  delivery: 'dlv_',
  share: 'shr_',
  upload: 'upl_',
  question: 'q_',
  token: 'tok_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** Random bytes drawn from the system's CSPRNG a pool at a time. */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let drawn = POOL_BYTES;

/**
 * A fraction in [0, 1) from one byte of the pool: each of a ULID's 16 random characters takes
 * `floor(x * 32)`, the byte's top 5 bits, as ulid's own PRNG would. Its own PRNG asks the system
 * for one byte per character, 16 calls an id, a share of the daemon's CPU on every turn (a
 * bench:nodes profile); one call per 4 KiB gives the same bytes.
 */
function pooledRandom(): number {
  if (drawn === POOL_BYTES) {
    globalThis.crypto.getRandomValues(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
}

// Monotonic so two ids minted in the same millisecond still sort in minting order.
const nextUlid = monotonicFactory(pooledRandom);

// 26 Crockford base32 characters; the first is at most 7 (48-bit timestamp).
const ULID_BODY = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + nextUlid();
}

export function isId(kind: IdKind, value: unknown): value is string {
  const prefix = ID_PREFIXES[kind];
  return (
    typeof value === 'string' &&
    value.startsWith(prefix) &&
    ULID_BODY.test(value.slice(prefix.length))
  );
}

export function assertId(kind: IdKind, value: unknown, argName: string): asserts value is string {
  if (!isId(kind, value)) {
    throw new TypeError(
      `${argName} must be a ${kind} id (${ID_PREFIXES[kind]} followed by 26 characters); received ${describeValue(value)}`,
    );
  }
}

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** Provider, profile and app names: lowercase, start with a letter, at most 63 characters. */
export function isName(value: unknown): value is string {
  return typeof value === 'string' && NAME.test(value);
}

export function assertName(
  what: 'provider' | 'profile' | 'app',
  value: unknown,
  argName: string,
): asserts value is string {
  if (!isName(value)) {
    throw new TypeError(
      `${argName} must be a ${what} name (a lowercase letter, then up to 62 of a-z, 0-9, '-'); received ${describeValue(value)}`,
    );
  }
}

/** A short, safe rendering of a bad value for an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  }
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
