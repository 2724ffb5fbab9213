/** Strong entity tags and `If-None-Match` evaluation (RFC 9110 §8.8.3, §13.1.2). */

/** A strong ETag: the quoted base64url SHA-256 of the bytes. */
export async function strongEtag(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `"${base64url(digest)}"`;
}

// RFC 9110 §8.8.3: `opaque-tag = DQUOTE *etagc DQUOTE`, `etagc = %x21 / %x23-7E / obs-text`;
// OWS is spaces and tabs only (§5.6.3).
const ETAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;
const ANY = /^[ \t]*\*[ \t]*$/;

/**
 * Whether an `If-None-Match` field matches `etag`: `*` matches any current representation;
 * otherwise any listed tag matches by weak comparison (the opaque tags are equal, `W/` ignored).
 * The list is read by its grammar (`#entity-tag`, where a tag may hold a comma): a field that
 * does not follow it (`w/"x"`, `x"y"`) matches nothing, and the full answer goes out.
 */
export function ifNoneMatch(field: string | null, etag: string): boolean {
  if (field === null) return false;
  if (field === etag) return true; // what a client that kept our ETag sends back
  if (ANY.test(field)) return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  let matched = false;
  let at = 0;
  for (;;) {
    // Empty list elements and OWS around them are allowed (RFC 9110 §5.6.1.2).
    while (at < field.length && (field[at] === ',' || field[at] === ' ' || field[at] === '\t')) {
      at++;
    }
    if (at === field.length) return matched;
    if (field.startsWith('W/', at)) at += 2;
    if (field[at] !== '"') return false;
    const end = field.indexOf('"', at + 1);
    if (end < 0) return false;
    const tag = field.slice(at, end + 1);
    if (!ETAG.test(tag)) return false;
    if (tag === opaque) matched = true;
    at = end + 1;
    // A tag ends at OWS and a comma, or at the end.
    while (field[at] === ' ' || field[at] === '\t') at++;
    if (at < field.length && field[at] !== ',') return false;
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
