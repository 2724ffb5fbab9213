/** `--jq`: the jq subset `gh --jq` users reach for, with no jq installed. */
import { describe, expect, it } from 'vitest';
import { compileJq, jqLines } from '../src/output/jq.ts';

const page = {
  data: [
    { id: 'nd_1', state: 'done', usage: { turns: 3 }, 'odd-key': 1 },
    { id: 'nd_2', state: 'queued', usage: { turns: 0 }, 'odd-key': 2 },
  ],
  has_more: false,
  next_cursor: null,
};
const run = (expr: string, value: unknown = page) => jqLines(compileJq(expr), value);

describe('--jq', () => {
  it('paths, iteration and indexes; strings print raw', () => {
    expect(run('.data[].id')).toEqual(['nd_1', 'nd_2']);
    expect(run('.data[0].usage.turns')).toEqual(['3']);
    expect(run('.data[-1].state')).toEqual(['queued']);
    expect(run('.data[]["odd-key"]')).toEqual(['1', '2']);
    expect(run('.next_cursor')).toEqual(['null']);
    expect(run('.missing.deeper')).toEqual(['null']);
    expect(run('.')).toEqual([JSON.stringify(page)]);
  });

  it('pipes, field selection, length and keys', () => {
    expect(run('.data[] | {id, state}')).toEqual([
      '{"id":"nd_1","state":"done"}',
      '{"id":"nd_2","state":"queued"}',
    ]);
    expect(run('.data[] | {id, turns: .usage.turns}')).toEqual([
      '{"id":"nd_1","turns":3}',
      '{"id":"nd_2","turns":0}',
    ]);
    expect(run('.data | length')).toEqual(['2']);
    expect(run('keys')).toEqual(['["data","has_more","next_cursor"]']);
  });

  it('a malformed filter is a usage error naming where; a bad read is an error', () => {
    expect(() => compileJq('data')).toThrow(/--jq: a filter starts with \. .* column 1/);
    expect(() => compileJq('.data[')).toThrow(/--jq: an index/);
    expect(() => compileJq('.a )')).toThrow(/unexpected '\)'/);
    expect(() => run('.has_more[]')).toThrow(/cannot iterate over a boolean/);
  });
});
