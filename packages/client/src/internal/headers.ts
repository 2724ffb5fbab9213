/**
 * Headers as a caller may give them. In the record form a `null` value removes a header set by
 * an earlier layer (client defaults), the way the Stainless SDKs allow.
 */
export type HeadersLike = HeadersInit | Record<string, string | null | undefined>;

/** Header names by their lowercase form, as `fetch` takes them: the merged layers of one call. */
export type HeaderRecord = Record<string, string>;

// RFC 9110 §5.1 (a name is a token) and §5.5 (a value holds no NUL, CR or LF; outer blanks are
// not part of it), as the Fetch standard's `Headers` checks them.
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\r\n]/;
const OUTER_BLANKS = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * Merges header layers left to right into a plain record with lowercase names; later layers win,
 * `null` deletes. A record, not a `Headers`: `fetch` copies what it is given into a list of its
 * own either way, and a `Headers` built per call cost more than the rest of the client's work.
 * A malformed name or value throws the `TypeError` a `Headers` would, before anything is sent.
 */
export function mergeHeaders(...layers: (HeadersLike | undefined)[]): HeaderRecord {
  // No prototype: a header named `__proto__` is a header like any other.
  const out: HeaderRecord = Object.create(null);
  for (const layer of layers) {
    if (!layer) continue;
    // Headers (of any realm) and entry arrays are iterable; a plain record is not.
    const entries =
      Symbol.iterator in layer
        ? (layer as Iterable<readonly [string, string]>)
        : Object.entries(layer as Record<string, string | null | undefined>);
    for (const [name, value] of entries) {
      if (!NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
      const key = name.toLowerCase();
      if (value === null) delete out[key];
      else if (value !== undefined) out[key] = headerValue(name, value);
    }
  }
  // As an ordinary object: V8 copies one of those (a retry's, a shared default's) many times
  // faster than a prototype-less one, and `__proto__` stays an own key of the copy.
  return { ...out };
}

function headerValue(name: string, value: string): string {
  const text = String(value).replace(OUTER_BLANKS, '');
  if (BAD_VALUE.test(text)) throw new TypeError(`invalid value of header ${name}`);
  return text;
}
