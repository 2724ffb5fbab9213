import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ServerSentEvent, SSEParser } from '../src/core/sse.ts';

function parse(...chunks: string[]): { events: ServerSentEvent[]; parser: SSEParser } {
  const parser = new SSEParser();
  const events = chunks.flatMap((chunk) => parser.feed(chunk));
  return { events, parser };
}

describe('SSEParser (WHATWG event stream interpretation)', () => {
  it('dispatches at a blank line with event, data and id', () => {
    const { events, parser } = parse('id: 7\nevent: token.created\ndata: {"seq":7}\n\n');
    expect(events).toEqual([{ id: '7', event: 'token.created', data: '{"seq":7}' }]);
    expect(parser.lastEventId).toBe('7');
  });

  it('joins multi-line data with LF and defaults the type to "message"', () => {
    expect(parse('data: a\ndata:b\ndata\ndata:  c\n\n').events).toEqual([
      { id: '', event: 'message', data: 'a\nb\n\n c' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, also split across chunks', () => {
    const text = 'data: 1\r\n\r\ndata: 2\r\rdata: 3\n\n';
    expect(parse(text).events.map((e) => e.data)).toEqual(['1', '2', '3']);
    for (let cut = 0; cut <= text.length; cut++) {
      expect(parse(text.slice(0, cut), text.slice(cut)).events.map((e) => e.data)).toEqual([
        '1',
        '2',
        '3',
      ]);
    }
    // A CR at the end of a chunk followed by LF is one line end, not an empty line.
    expect(parse('data: x\r', '\ndata: y\r\n\r\n').events).toEqual([
      { id: '', event: 'message', data: 'x\ny' },
    ]);
  });

  it('skips one leading BOM, comments, unknown fields and bad retry values', () => {
    const { events, parser } = parse(
      '\uFEFF: keepalive\nfoo: bar\nretry: 1x\ndata: a\n\n\uFEFFdata: b\n\n',
    );
    expect(events[0]?.data).toBe('a');
    expect(events).toHaveLength(1); // the second BOM makes the field name "\uFEFFdata"
    expect(parser.retry).toBeUndefined();
    expect(parse('retry: 1500\n\n').parser.retry).toBe(1500);
  });

  it('keeps the last id across events, ignores ids with NUL, and resets on an empty id', () => {
    const { events } = parse('id: 1\ndata: a\n\ndata: b\n\nid: 2\0\ndata: c\n\nid\ndata: d\n\n');
    expect(events.map((e) => e.id)).toEqual(['1', '1', '1', '']);
  });

  it('commits an id without data, but not one of an unfinished event', () => {
    const dispatched = parse('id: 5\n\n');
    expect(dispatched.events).toEqual([]);
    expect(dispatched.parser.lastEventId).toBe('5');
    const partial = parse('id: 1\ndata: a\n\nid: 2\ndata: b\n');
    expect(partial.events.map((e) => e.data)).toEqual(['a']);
    expect(partial.parser.lastEventId).toBe('1');
  });

  it('starts from a given last id (a reconnect)', () => {
    const parser = new SSEParser('41');
    expect(parser.feed('data: x\n\n')).toEqual([{ id: '41', event: 'message', data: 'x' }]);
  });

  it('gives the same events however the stream is chunked', () => {
    const line = fc.constantFrom(
      'data: a',
      'data: b\u00e9',
      'id: 3',
      'event: e',
      ': c',
      '',
      'retry: 9',
    );
    const end = fc.constantFrom('\n', '\r', '\r\n');
    const stream = fc
      .array(fc.tuple(line, end), { maxLength: 30 })
      .map((parts) => parts.map(([l, e]) => l + e).join(''));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 5 }), (text, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((p, i, all) => text.slice(p, all[i + 1] ?? text.length));
        expect(parse(...chunks).events).toEqual(parse(text).events);
      }),
      { numRuns: 200 },
    );
  });
});
