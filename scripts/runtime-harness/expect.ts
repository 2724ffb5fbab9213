// `expect` with the matcher subset the plugin kit's tests are allowed to use, with
// vitest's semantics for `.not`, `.resolves` and `.rejects`.
import { equals } from './equals.ts';

export class AssertionError extends Error {
  override name = 'AssertionError';
}

type Outcome = { pass: boolean; message: string };
type Matcher = (actual: unknown, ...args: never[]) => Outcome;

const matchers = {
  toBe: (actual: unknown, expected: unknown) =>
    outcome(Object.is(actual, expected), `${show(actual)} to be ${show(expected)}`),
  toEqual: (actual: unknown, expected: unknown) =>
    outcome(equals(actual, expected), `${show(actual)} to equal ${show(expected)}`),
  toStrictEqual: (actual: unknown, expected: unknown) =>
    outcome(equals(actual, expected, true), `${show(actual)} to strictly equal ${show(expected)}`),
  toMatch: (actual: unknown, expected: string | RegExp) => {
    if (typeof actual !== 'string')
      throw new TypeError(`toMatch needs a string, got ${show(actual)}`);
    const pass = typeof expected === 'string' ? actual.includes(expected) : expected.test(actual);
    return outcome(pass, `${show(actual)} to match ${show(expected)}`);
  },
  toContain: (actual: unknown, item: unknown) => {
    const pass =
      typeof actual === 'string'
        ? actual.includes(String(item))
        : isIterable(actual) && Array.from(actual).includes(item);
    return outcome(pass, `${show(actual)} to contain ${show(item)}`);
  },
  toBeDefined: (actual: unknown) => outcome(actual !== undefined, `${show(actual)} to be defined`),
  toBeUndefined: (actual: unknown) =>
    outcome(actual === undefined, `${show(actual)} to be undefined`),
  toBeNull: (actual: unknown) => outcome(actual === null, `${show(actual)} to be null`),
  toBeTruthy: (actual: unknown) => outcome(Boolean(actual), `${show(actual)} to be truthy`),
  toBeFalsy: (actual: unknown) => outcome(!actual, `${show(actual)} to be falsy`),
  toBeGreaterThan: (actual: unknown, n: number | bigint) => compare(actual, '>', n),
  toBeGreaterThanOrEqual: (actual: unknown, n: number | bigint) => compare(actual, '>=', n),
  toBeLessThan: (actual: unknown, n: number | bigint) => compare(actual, '<', n),
  toBeLessThanOrEqual: (actual: unknown, n: number | bigint) => compare(actual, '<=', n),
  toHaveLength: (actual: unknown, length: number) => {
    const got = actual == null ? undefined : (actual as { length?: unknown }).length;
    return outcome(
      got === length,
      `${show(actual)} (length ${show(got)}) to have length ${length}`,
    );
  },
  toHaveProperty: (actual: unknown, path: string | readonly PropertyKey[], ...value: unknown[]) => {
    const found = lookup(actual, typeof path === 'string' ? parsePath(path) : path);
    const pass = found.has && (value.length === 0 || equals(found.value, value[0]));
    const tail = value.length === 0 ? '' : ` with value ${show(value[0])}`;
    const got = found.has ? ` (found ${show(found.value)})` : '';
    return outcome(pass, `${show(actual)} to have property ${show(path)}${tail}${got}`);
  },
  toBeInstanceOf: (actual: unknown, type: abstract new (...args: never[]) => unknown) =>
    outcome(actual instanceof type, `${show(actual)} to be an instance of ${type.name}`),
  toThrow: (thrown: unknown, expected?: unknown) => thrownMatches(thrown, expected),
} satisfies Record<string, Matcher>;

type Matchers = typeof matchers;
type Drop1<F> = F extends (actual: unknown, ...rest: infer R) => Outcome ? R : never;
type Sync = { [K in keyof Matchers]: (...args: Drop1<Matchers[K]>) => void };
type Async = { [K in keyof Matchers]: (...args: Drop1<Matchers[K]>) => Promise<void> };
export type Assertion = Sync & {
  not: Sync;
  resolves: Async & { not: Async };
  rejects: Async & { not: Async };
};

// `toThrow` calls a function subject; after `.rejects` its subject is the rejection reason.
const NO_THROW = Symbol('no throw');

export function expect(actual: unknown, label?: string): Assertion {
  const sync = (negate: boolean) =>
    bind((name, args) => check(name, actual, args, negate, label, true)) as Sync;
  const settle = (mode: 'resolves' | 'rejects', negate: boolean) =>
    bind(async (name, args) => {
      const promise = typeof actual === 'function' ? (actual as () => unknown)() : actual;
      let value: unknown;
      try {
        value = await promise;
      } catch (reason) {
        if (mode === 'resolves')
          fail(label, `promise rejected with ${show(reason)}, expected it to resolve`);
        return check(name, reason, args, negate, label, false);
      }
      if (mode === 'rejects')
        fail(label, `promise resolved with ${show(value)}, expected it to reject`);
      return check(name, value, args, negate, label, false);
    }) as Async;
  return Object.assign(sync(false), {
    not: sync(true),
    resolves: Object.assign(settle('resolves', false), { not: settle('resolves', true) }),
    rejects: Object.assign(settle('rejects', false), { not: settle('rejects', true) }),
  });
}

function bind<R>(run: (name: keyof Matchers, args: unknown[]) => R): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (const name of Object.keys(matchers) as (keyof Matchers)[]) {
    bound[name] = (...args: unknown[]) => run(name, args);
  }
  return bound;
}

function check(
  name: keyof Matchers,
  subject: unknown,
  args: unknown[],
  negate: boolean,
  label: string | undefined,
  callFunction: boolean,
): void {
  let actual = subject;
  if (name === 'toThrow' && callFunction) {
    if (typeof subject !== 'function')
      throw new TypeError(`toThrow needs a function, got ${show(subject)}`);
    actual = NO_THROW;
    try {
      subject();
    } catch (error) {
      actual = error;
    }
  }
  const { pass, message } = (matchers[name] as (a: unknown, ...rest: unknown[]) => Outcome)(
    actual,
    ...args,
  );
  if (pass === negate) fail(label, `expected ${negate ? 'not ' : ''}${message}`);
}

function thrownMatches(thrown: unknown, expected: unknown): Outcome {
  if (thrown === NO_THROW)
    return outcome(false, `function to throw${expected === undefined ? '' : ` ${show(expected)}`}`);
  const message =
    typeof thrown === 'object' && thrown !== null && 'message' in thrown
      ? String(thrown.message)
      : String(thrown);
  const said = `thrown ${show(thrown)}`;
  if (expected === undefined) return outcome(true, `${said} to be thrown`);
  if (typeof expected === 'string')
    return outcome(message.includes(expected), `${said} to include ${show(expected)}`);
  if (expected instanceof RegExp)
    return outcome(expected.test(message), `${said} to match ${expected}`);
  if (typeof expected === 'function') {
    return outcome(thrown instanceof expected, `${said} to be an instance of ${expected.name}`);
  }
  if (expected instanceof Error)
    return outcome(equals(thrown, expected), `${said} to equal ${show(expected)}`);
  throw new TypeError(`toThrow cannot match ${show(expected)}`);
}

function compare(actual: unknown, op: '>' | '>=' | '<' | '<=', n: number | bigint): Outcome {
  if (typeof actual !== 'number' && typeof actual !== 'bigint') {
    throw new TypeError(`${op} needs a number, got ${show(actual)}`);
  }
  const pass =
    op === '>' ? actual > n : op === '>=' ? actual >= n : op === '<' ? actual < n : actual <= n;
  return outcome(pass, `${show(actual)} ${op} ${show(n)}`);
}

// `a.b[0].c` → ['a', 'b', '0', 'c'], as vitest's `toHaveProperty` reads a string path.
function parsePath(path: string): string[] {
  return path
    .split(/\.|\[(\d+)\]/)
    .filter((part): part is string => part !== undefined && part !== '');
}

function lookup(value: unknown, path: readonly PropertyKey[]): { has: boolean; value?: unknown } {
  let current = value;
  for (const key of path) {
    if (current === null || current === undefined || !(key in Object(current)))
      return { has: false };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { has: true, value: current };
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return value != null && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function';
}

function outcome(pass: boolean, message: string): Outcome {
  return { pass, message };
}

function fail(label: string | undefined, message: string): never {
  throw new AssertionError(label === undefined ? message : `${label}: ${message}`);
}

// A short, stable rendering for failure messages.
export function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 300 ? `${value.slice(0, 300)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return `[Function ${value.name || 'anonymous'}]`;
  if (typeof value === 'symbol' || value === undefined) return String(value);
  if (value instanceof Error) return `${value.name}(${JSON.stringify(value.message)})`;
  if (value instanceof RegExp) return String(value);
  try {
    const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v));
    const name = (value as object).constructor?.name;
    const prefix = name && name !== 'Object' && name !== 'Array' ? `${name} ` : '';
    return prefix + (text.length > 500 ? `${text.slice(0, 500)}…` : text);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
