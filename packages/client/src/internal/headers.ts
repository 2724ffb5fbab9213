/**
 * Headers as a caller may give them. In the record form a `null` value removes a header set by
 * an earlier layer (client defaults), the way the Stainless SDKs allow.
 */
export type HeadersLike = HeadersInit | Record<string, string | null | undefined>;

/** Header names by their lowercase form, as `fetch` takes them: the merged layers of one call. */
export type HeaderRecord = Record<string, string>;

// RFC 9110 §5.1 (a name is a token) and §5.5 (a value holds no NUL, CR or LF; outer blanks are
// not part of it), as the Fetch standard's `Headers` checks them; a value is also a ByteString
// (WebIDL §3.2.10), so no character past U+00FF.
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\r\n]|[^\0-\xff]/;
const OUTER_BLANKS = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * Merges header layers left to right into a plain record with lowercase names; later layers win,
 * `null` deletes. Within one `Headers` or entry list a repeated name is joined with `, `, as
 * `Headers.append` joins it. A record, not a `Headers`: `fetch` copies what it is given into a
 * list of its own either way, and a `Headers` built per call cost more than the rest of the
 * client's work. A malformed name, value or entry throws the `TypeError` a `Headers` would,
 * before anything is sent.
 */
export function mergeHeaders(...layers: (HeadersLike | undefined)[]): HeaderRecord {
  // No prototype: a header named `__proto__` is a header like any other.
  const out: HeaderRecord = Object.create(null);
  for (const layer of layers) {
    if (!layer) continue;
    // Headers (of any realm) and entry arrays are iterable; a plain record is not.
    if (Symbol.iterator in layer) {
      const seen = new Set<string>();
      for (const entry of layer as Iterable<readonly string[]>) {
        if (entry.length !== 2) throw new TypeError('a header entry is a [name, value] pair');
        const [name = '', value = ''] = entry;
        const key = headerName(name);
        const text = headerValue(name, value);
        out[key] = seen.has(key) ? `${out[key]}, ${text}` : text;
        seen.add(key);
      }
      continue;
    }
    for (const [name, value] of Object.entries(
      layer as Record<string, string | null | undefined>,
    )) {
      const key = headerName(name);
      if (value === null) delete out[key];
      else if (value !== undefined) out[key] = headerValue(name, value);
    }
  }
  // As an ordinary object: V8 copies one of those (a retry's, a shared default's) many times
  // faster than a prototype-less one, and `__proto__` stays an own key of the copy.
  return { ...out };
}

function headerName(name: string): string {
  if (!NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
  return name.toLowerCase();
}

function headerValue(name: string, value: string): string {
  const text = String(value).replace(OUTER_BLANKS, '');
  if (BAD_VALUE.test(text)) throw new TypeError(`invalid value of header ${name}`);
  return text;
}
