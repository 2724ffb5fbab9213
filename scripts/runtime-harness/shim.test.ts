// Checks the vitest shim against vitest itself: this file passes under real vitest
// (`npx vitest run --config scripts/runtime-harness/vitest.config.ts`) and, through the
// shim, on every runtime of the matrix, so the two agree on each matcher used.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';

const fails = (assertion: () => unknown) => expect(assertion).toThrow();

describe('equality', () => {
  it('toBe uses Object.is', () => {
    expect(1).toBe(1);
    expect(Number.NaN).toBe(Number.NaN);
    expect(0).not.toBe(-0);
    fails(() => expect({}).toBe({}));
  });

  it('toEqual compares structure and ignores undefined properties', () => {
    expect({ a: 1, b: [1, { c: 'x' }] }).toEqual({ a: 1, b: [1, { c: 'x' }] });
    expect({ a: 1, b: undefined }).toEqual({ a: 1 });
    expect(new Uint8Array([1, 2])).toEqual(new Uint8Array([1, 2]));
    expect(new Map([['k', { v: 1 }]])).toEqual(new Map([['k', { v: 1 }]]));
    expect(new Set([{ a: 1 }])).toEqual(new Set([{ a: 1 }]));
    expect(new Date(5)).toEqual(new Date(5));
    expect(new Error('boom')).toEqual(new Error('boom'));
    expect({ a: 1 }).not.toEqual({ a: 2 });
    expect([1, 2]).not.toEqual([1, 2, 3]);
    expect(new Uint8Array([1, 2])).not.toEqual(new Uint8Array([1, 3]));
    expect(new Date(5)).not.toEqual(new Date(6));
    fails(() => expect({ a: { b: 1 } }).toEqual({ a: { b: 2 } }));
  });

  it('toStrictEqual also compares undefined properties and prototypes', () => {
    class Point {
      x: number;
      constructor(x: number) {
        this.x = x;
      }
    }
    expect({ a: [1] }).toStrictEqual({ a: [1] });
    expect(new Point(1)).toEqual({ x: 1 });
    expect(new Point(1)).not.toStrictEqual({ x: 1 });
    expect({ a: 1, b: undefined }).not.toStrictEqual({ a: 1 });
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect([, 1]).not.toStrictEqual([undefined, 1]);
  });
});

describe('other matchers', () => {
  it('match, contain, length and property', () => {
    expect('hello world').toMatch(/wor/);
    expect('hello world').toMatch('lo w');
    expect('abc').not.toMatch(/z/);
    expect([1, 2, 3]).toContain(2);
    expect('abc').toContain('b');
    expect([{ a: 1 }]).not.toContain({ a: 1 });
    expect([1, 2]).toHaveLength(2);
    expect('abc').toHaveLength(3);
    expect({ a: { b: [{ c: 7 }] } }).toHaveProperty('a.b[0].c', 7);
    expect({ a: { b: 1 } }).toHaveProperty(['a', 'b']);
    expect({ a: undefined }).toHaveProperty('a');
    expect({ a: 1 }).not.toHaveProperty('b');
    expect({ a: 1 }).not.toHaveProperty('a', 2);
    fails(() => expect([1]).toHaveLength(2));
  });

  it('definedness and truthiness', () => {
    expect(0).toBeDefined();
    expect(undefined).toBeUndefined();
    expect(null).toBeNull();
    expect(null).not.toBeUndefined();
    expect('x').toBeTruthy();
    expect('').toBeFalsy();
    fails(() => expect(1).toBeFalsy());
  });

  it('number comparisons', () => {
    expect(2).toBeGreaterThan(1);
    expect(2).toBeGreaterThanOrEqual(2);
    expect(1).toBeLessThan(2);
    expect(2).toBeLessThanOrEqual(2);
    expect(2).not.toBeLessThan(2);
    expect(3n).toBeGreaterThan(2n);
    fails(() => expect(1).toBeGreaterThan(1));
  });

  it('toThrow and toBeInstanceOf', () => {
    const boom = () => {
      throw new TypeError('bad baseUrl: has /v2');
    };
    expect(boom).toThrow();
    expect(boom).toThrow('baseUrl');
    expect(boom).toThrow(/\/v\d/);
    expect(boom).toThrow(TypeError);
    expect(boom).toThrow(new TypeError('bad baseUrl: has /v2'));
    expect(boom).not.toThrow(new Error('bad baseUrl: has /v2'));
    expect(boom).not.toThrow(RangeError);
    expect(() => 1).not.toThrow();
    expect(new TypeError('x')).toBeInstanceOf(Error);
    expect({}).not.toBeInstanceOf(Error);
    fails(() => expect(() => 1).toThrow());
  });
});

describe('promises', () => {
  it('resolves and rejects', async () => {
    await expect(Promise.resolve({ a: 1 })).resolves.toEqual({ a: 1 });
    await expect(Promise.resolve(1)).resolves.not.toBe(2);
    await expect(Promise.reject(new TypeError('nope'))).rejects.toThrow('nope');
    await expect(Promise.reject(new TypeError('nope'))).rejects.toBeInstanceOf(TypeError);
    await expect(async () => {
      throw new Error('lazy');
    }).rejects.toThrow(/lazy/);
    await expect(expect(Promise.resolve(1)).rejects.toThrow()).rejects.toThrow();
    await expect(expect(Promise.reject(new Error('x'))).resolves.toBe(1)).rejects.toThrow();
  });
});

const order: string[] = [];

describe('hooks', () => {
  beforeAll(() => {
    order.push('beforeAll');
    return () => order.push('beforeAll teardown');
  });
  afterAll(() => {
    order.push('afterAll');
  });
  beforeEach(() => {
    order.push('outer beforeEach');
  });
  afterEach(() => {
    order.push('outer afterEach');
  });

  describe('inner', () => {
    beforeEach(() => {
      order.push('inner beforeEach');
    });
    afterEach(() => {
      order.push('inner afterEach');
    });
    test('runs hooks outermost first before, innermost first after', () => {
      order.push('test');
    });
  });

  it('sees the previous test fully torn down', () => {
    expect(order).toEqual([
      'beforeAll',
      'outer beforeEach',
      'inner beforeEach',
      'test',
      'inner afterEach',
      'outer afterEach',
      'outer beforeEach',
    ]);
  });
});

describe('after the hooks suite', () => {
  it('ran afterAll, then the beforeAll teardown', () => {
    expect(order.slice(-3)).toEqual(['outer afterEach', 'afterAll', 'beforeAll teardown']);
  });
});
