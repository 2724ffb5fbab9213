/**
 * Headers as a caller may give them. In the record form a `null` value removes a header set by
 * an earlier layer (client defaults), the way the Stainless SDKs allow.
 */
export type HeadersLike = HeadersInit | Record<string, string | null | undefined>;

/** Merges header layers left to right into one `Headers`; later layers win, `null` deletes. */
export function mergeHeaders(...layers: (HeadersLike | undefined)[]): Headers {
  const out = new Headers();
  for (const layer of layers) {
    if (!layer) continue;
    // Headers (of any realm) and entry arrays are iterable; a plain record is not.
    const entries =
      Symbol.iterator in layer ? new Headers(layer as HeadersInit) : Object.entries(layer);
    for (const [name, value] of entries) {
      if (value === null) out.delete(name);
      else if (value !== undefined) out.set(name, value);
    }
  }
  return out;
}
