/** The shape checks the kit makes of what authors and callers hand it. */

/** A non-null object that is not an array: a JSON object, a definition, an options bag. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object made by a literal or `Object.create(null)`: no class of its own to act on JSON. */
export function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `async function*`: what streams by default (its generator is the answer's items). */
export function isAsyncGeneratorFunction(fn: unknown): boolean {
  return Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]';
}

/** `function*`: its generator is no answer the kit can send. */
export function isGeneratorFunction(fn: unknown): boolean {
  return Object.prototype.toString.call(fn) === '[object GeneratorFunction]';
}
