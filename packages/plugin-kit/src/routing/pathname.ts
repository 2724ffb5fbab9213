/**
 * The path of `request.url`, as `new URL(url).pathname` would give it, without parsing the URL
 * again on every request. `request.url` is always a serialized URL (Fetch §5.4, "The url getter
 * steps"), so its path is already normalized: `.` and `..` resolved, `%2F` left inside its segment.
 * In an http(s) URL the path starts at the first `/` after `scheme://` and ends at `?` or `#`.
 */
export function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  let end = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  if (end < 0 || (hash >= 0 && hash < end)) end = hash;
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
