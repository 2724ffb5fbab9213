/**
 * Paths inside scopes: host directories of `svc:files:*` and document paths of
 * `svc:memory:*:user:<path>`. Both are compared by whole `/` segments.
 */

import { UNSHOWABLE } from '../text.ts';

// Whitespace and commas separate entries of a scope list given as one string; control characters
// (bidirectional ones included) have no business in a path. Refusing them keeps every canonical
// scope list unambiguous.
const SEPARATORS = /[\s,]/u;

/**
 * Normalizes an absolute path: collapses repeated `/`, drops `.` segments and a trailing `/`.
 * A `..` segment is refused rather than resolved, so a scope never names a directory other than
 * the one written. Returns the normalized path, or a reason (a predicate phrase) when invalid.
 */
export function normalizeAbsolutePath(
  raw: string,
): { ok: true; path: string } | { ok: false; reason: string } {
  if (!raw.startsWith('/')) return { ok: false, reason: 'must be an absolute path (start with /)' };
  if (SEPARATORS.test(raw) || UNSHOWABLE.test(raw)) {
    return { ok: false, reason: 'must not contain whitespace, commas or control characters' };
  }
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, reason: "must not contain a '..' segment" };
  return { ok: true, path: `/${segments.join('/')}` };
}

/** True when `path` is `base` or lies below it by whole segments (`/a/b` holds `/a/b/c`, not `/a/bc`). */
export function isWithin(base: string, path: string): boolean {
  return base === '/' || path === base || path.startsWith(`${base}/`);
}
