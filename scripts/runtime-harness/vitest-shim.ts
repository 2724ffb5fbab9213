// Stands in for 'vitest' when the plugin kit's test files run on Node 20, Bun, Deno and
// workerd: exactly the API those files may use (see scripts/test-runtimes.ts).
import { addHook, addSuite, addTest, type Fn } from './suite.ts';

export { expect } from './expect.ts';

type Options = { timeout?: number };

// vitest accepts `(name, fn)`, `(name, fn, timeout)` and `(name, options, fn)`.
function parse(name: string, a: Fn | Options | undefined, b: Fn | number | undefined) {
  if (typeof a === 'function')
    return { name, fn: a, timeout: typeof b === 'number' ? b : undefined };
  if (typeof b === 'function') return { name, fn: b, timeout: a?.timeout };
  throw new TypeError(`"${name}" has no function`);
}

export function describe(name: string, a: Fn | Options, b?: Fn | number): void {
  addSuite(name, parse(name, a, b).fn);
}

export function it(name: string, a: Fn | Options, b?: Fn | number): void {
  const { fn, timeout } = parse(name, a, b);
  addTest(name, fn, timeout);
}

export const test = it;

export const beforeAll = (fn: Fn): void => addHook('beforeAll', fn);
export const afterAll = (fn: Fn): void => addHook('afterAll', fn);
export const beforeEach = (fn: Fn): void => addHook('beforeEach', fn);
export const afterEach = (fn: Fn): void => addHook('afterEach', fn);
