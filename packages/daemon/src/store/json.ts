/** JSON columns: `NULL` stays `null`, anything else is stored as its JSON text. */

export function toJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export function fromJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/**
 * SQLite's JSON functions, the columns' `json_valid` checks included, refuse nesting deeper than
 * 1000, and `JSON.stringify` gives out somewhat later: what the daemon may store must stay under
 * this. Request bodies are held to it as they are decoded, so no route's insert can fail on it.
 */
export const MAX_JSON_DEPTH = 990;

/** Whether `value` nests objects or arrays deeper than `MAX_JSON_DEPTH`: a stack, since recursion
 * is what fails on such values. */
export function nestsTooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A high surrogate not followed by a low one, or a low one not after a high one (code units). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a string of `value` (a key or a value) holds a lone surrogate, which only a `\uD800`
 * escape can put in JSON text: SQLite stores text as UTF-8, where it becomes U+FFFD, so what was
 * acknowledged would not be what is stored (a document saved under one path, read under another).
 */
export function holdsLoneSurrogate(value: unknown): boolean {
  // (`String.prototype.isWellFormed` says the same, from ES2024 on.)
  const stack: unknown[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return true;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (LONE_SURROGATE.test(key)) return true;
        stack.push(child);
      }
    }
  }
  return false;
}
