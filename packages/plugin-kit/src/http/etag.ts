/** Strong entity tags and `If-None-Match` evaluation (RFC 9110 §8.8.3, §13.1.2). */

/** A strong ETag: the quoted base64url SHA-256 of the bytes. */
export async function strongEtag(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `"${base64url(digest)}"`;
}

/**
 * Whether an `If-None-Match` field matches `etag`: `*` matches any current representation;
 * otherwise any listed tag matches by weak comparison (the opaque tags are equal, `W/` ignored).
 * Tags are matched as quoted strings rather than split on commas, since a tag may contain one.
 */
export function ifNoneMatch(field: string | null, etag: string): boolean {
  if (field === null) return false;
  if (field === etag) return true; // what a client that kept our ETag sends back
  if (field.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const match of field.matchAll(/(?:W\/)?("[^"]*")/g)) {
    if (match[1] === opaque) return true;
  }
  return false;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
