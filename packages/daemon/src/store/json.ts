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
