import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../src/bounded-cache.ts';

describe('BoundedCache', () => {
  it('never holds more than its bound, forgetting the oldest insert first', () => {
    const cache = new BoundedCache<string, number>(3);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect(cache.get('k6')).toBeUndefined();
    expect(cache.get('k7')).toBe(7);
    cache.set('k10', 10); // k7 is the oldest insert, read or not
    expect(cache.get('k7')).toBeUndefined();
    expect(cache.get('k8')).toBe(8);
    expect(cache.get('k9')).toBe(9);
    expect(cache.size).toBe(3);
  });

  it('replaces the value of an existing key without growing, making it the newest', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3);
    expect(cache.size).toBe(2);
    cache.set('c', 4); // b is now the oldest
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(3);
    expect(cache.get('c')).toBe(4);
  });
});
