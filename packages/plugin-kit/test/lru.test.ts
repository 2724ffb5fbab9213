import { describe, expect, it } from 'vitest';
import { Lru } from '../src/lru.ts';

describe('Lru', () => {
  it('never holds more than its bound, evicting the least recently used', () => {
    const lru = new Lru<string, number>(3);
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, i);
    expect(lru.size).toBe(3);
    expect(lru.get('k6')).toBeUndefined();
    expect(lru.get('k7')).toBe(7);
    lru.set('k10', 10); // k8 is now the least recently used (k7 was just read)
    expect(lru.get('k8')).toBeUndefined();
    expect(lru.get('k7')).toBe(7);
    expect(lru.get('k9')).toBe(9);
  });

  it('replaces the value of an existing key without growing', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('a', 2);
    expect(lru.size).toBe(1);
    expect(lru.get('a')).toBe(2);
  });

  it('keeps the order right when the most recent key is read again', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('b')).toBe(2); // already the most recent: nothing moves
    expect(lru.get('a')).toBe(1); // now a is the most recent
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3); // evicts b, the least recently used
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
  });
});
