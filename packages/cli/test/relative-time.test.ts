/** Times in tables, as `gh` and `docker` print them. */
import { describe, expect, it } from 'vitest';
import { relativeTime } from '../src/output/relative-time.ts';

const NOW = Date.parse('2026-06-15T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

describe('relativeTime', () => {
  it.each([
    [0, 'just now'],
    [44, 'just now'],
    [60, '1 minute ago'],
    [5 * 60, '5 minutes ago'],
    [60 * 60, '1 hour ago'],
    [5 * 3_600, '5 hours ago'],
    [26 * 3_600, '1 day ago'],
    [3 * 86_400, '3 days ago'],
    [40 * 86_400, '1 month ago'],
    [90 * 86_400, '3 months ago'],
    [400 * 86_400, '1 year ago'],
    [-10 * 60, 'in 10 minutes'],
    [-2 * 86_400, 'in 2 days'],
  ])('%i s ago reads %s', (seconds, text) => {
    expect(relativeTime(ago(seconds), NOW)).toBe(text);
  });

  it('leaves what is no time as it is', () => {
    expect(relativeTime('never', NOW)).toBe('never');
  });
});
