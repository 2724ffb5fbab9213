/** The static refusal of patterns that nest unbounded repetition (JSON Schema patterns, grep). */
import { describe, expect, it } from 'vitest';
import { nestedRepetition } from '../src/regex-safety.ts';

describe('nestedRepetition', () => {
  it('names a repeated group that itself repeats without bound', () => {
    expect(nestedRepetition('(a+)+')).toBe('(a+)+');
    expect(nestedRepetition('x(\\w*\\s?)*y')).toBe('(\\w*\\s?)*');
    expect(nestedRepetition('(?:a+){2,}')).toBe('(?:a+){2,}');
    expect(nestedRepetition('(.*x){20}')).toBe('(.*x){20}');
    expect(nestedRepetition('((a+)b)*')).toBe('((a+)b)*');
    expect(nestedRepetition('(a{1,100})+')).toBe('(a{1,100})+');
    expect(nestedRepetition('(a+?)+?')).toBe('(a+?)+');
  });

  it('lets through what repeats only once over, or only a little', () => {
    for (const safe of [
      'a+b+',
      '(ab)+',
      '(\\d{1,3}\\.){3}',
      '(a|b)*c',
      'error: (\\w+)',
      '(a+){2}',
      'x{3}',
      '{not a count}+',
    ]) {
      expect(nestedRepetition(safe), safe).toBeNull();
    }
  });

  it('reads escapes and character classes as single atoms', () => {
    expect(nestedRepetition('[(a+)]+')).toBeNull();
    expect(nestedRepetition('\\(a+\\)+')).toBeNull();
    expect(nestedRepetition('[\\]+]+')).toBeNull();
    expect(nestedRepetition('([\\]]+)+')).toBe('([\\]]+)+');
  });
});
