import { ApiError } from '../errors.ts';

// A path whose segments `new URL` would change: dot segments (also encoded) and backslashes
// (node's parser already refuses spaces and controls in the request target).
const UNUSUAL_PATH = /\/\.|%2e|\\/i;

/**
 * Decodes a path's percent-escapes once, but for `%2F` and `%25`: an encoded `/` must not split a
 * segment, and an encoded `%` must not start another escape when the route's parameters are
 * decoded (which decodes those two). A run with a malformed escape stays as it came; no route has
 * one, so it is answered 404.
 */
function decodeKeepingSlashes(path: string): string {
  return path
    .split(/(%2[fF]|%25)/)
    .map((part, i) => {
      if (i % 2 === 1 || !part.includes('%')) return part;
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    })
    .join('');
}

/**
 * The path and the query (between `?` and any fragment, RFC 3986 §3.4) of a request target. The
 * usual origin-form path is taken as is; one with dot segments (also encoded) or backslashes is
 * normalised as `new URL` does it (RFC 3986 §5.2.4), and percent-escapes are decoded once
 * (`decodeKeepingSlashes`).
 */
export function requestTarget(raw: string): {
  path: string;
  query: string;
  authority?: string;
  bad?: ApiError;
} {
  let url = raw;
  let authority: string | undefined;
  if (url.charCodeAt(0) !== 47 /* / */) {
    // The absolute form (RFC 9112 §3.2.2) is what a proxy sends; anything else is no path.
    if (!/^https?:\/\//i.test(url)) {
      const bad = new ApiError('invalid_request', 'the request target must be a path');
      return { path: '/', query: '', bad };
    }
    const parsed = URL.parse(url);
    if (parsed === null) return { path: '/', query: '', authority: '' };
    url = parsed.pathname + parsed.search;
    authority = parsed.host;
  }
  const hash = url.indexOf('#');
  if (hash !== -1) url = url.slice(0, hash);
  const mark = url.indexOf('?');
  let path = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? '' : url.slice(mark + 1);
  if (UNUSUAL_PATH.test(path)) path = URL.parse(path, 'http://localhost')?.pathname ?? '/';
  if (path.includes('%')) path = decodeKeepingSlashes(path);
  return authority === undefined ? { path, query } : { path, query, authority };
}
