/** Schemas as JSON has them: what the archive publishes is what the checks judge. */
import { isObject, isPlainObject } from './is-object.ts';
import type { JsonSchema } from './types.ts';

/**
 * The schema as JSON has it, once it is plain JSON data: JSON would turn `Infinity` and `NaN` into
 * `null` (a `maximum` that refuses every number), a RegExp into `{}` and a Date into a string, and
 * drop a function, each changing what the schema says without a word.
 */
export function jsonCopy(schema: object, at: string): JsonSchema {
  checkJson(schema, at, new Set());
  const copy: unknown = JSON.parse(JSON.stringify(schema));
  if (!isObject(copy)) throw new TypeError(`${at} must be a JSON Schema object`);
  return copy;
}

/** @param ancestors the objects above `value`: one seen again is a cycle, which JSON cannot hold */
function checkJson(value: unknown, at: string, ancestors: Set<object>): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${at} must be a finite number, got ${value}`);
    return;
  }
  const plain = typeof value === 'object' && (Array.isArray(value) || isPlainObject(value));
  if (!plain) {
    const kind = typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
    throw new TypeError(
      `${at} must be plain JSON data (objects, arrays, strings, numbers, booleans, null), got ${kind}`,
    );
  }
  if (ancestors.has(value)) throw new TypeError(`${at} refers to itself: JSON cannot hold a cycle`);
  ancestors.add(value);
  for (const [key, item] of Object.entries(value)) {
    // A property set to undefined is absent in JSON, as in the schema's meaning.
    if (item === undefined && !Array.isArray(value)) continue;
    checkJson(item, Array.isArray(value) ? `${at}[${key}]` : `${at}.${key}`, ancestors);
  }
  ancestors.delete(value);
}
