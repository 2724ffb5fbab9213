import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { palette, wantsColor } from '../src/output/color.ts';
import { cell, formatDuration } from '../src/output/format.ts';
import { Printer } from '../src/output/printer.ts';
import { renderFields, renderTable } from '../src/output/table.ts';

const plain = palette(false);

describe('renderTable', () => {
  it('aligns every column to its widest cell', () => {
    const text = renderTable(
      [
        { id: 'tok_1', kind: 'owner', scopes: 'everything' },
        { id: 'tok_22222', kind: 'app', scopes: 'svc:llm' },
      ],
      [
        { header: 'ID', value: (r) => r.id },
        { header: 'KIND', value: (r) => r.kind },
        { header: 'SCOPES', value: (r) => r.scopes },
      ],
      plain,
    );
    expect(text.split('\n')).toEqual([
      'ID         KIND   SCOPES',
      'tok_1      owner  everything',
      'tok_22222  app    svc:llm',
    ]);
  });

  it('keeps alignment when cells are coloured, and cells on one line', () => {
    const colors = palette(true);
    const text = renderTable(
      [
        { a: 'x', b: 'multi\nline' },
        { a: 'long', b: 'y' },
      ],
      [
        { header: 'A', value: (r) => r.a, style: (padded, _raw, c) => c.green(padded) },
        { header: 'B', value: (r) => r.b },
      ],
      colors,
    );
    const stripped = stripVTControlCharacters(text);
    expect(stripped.split('\n')).toEqual(['A     B', 'x     multi line', 'long  y']);
  });
});

describe('empty lists', () => {
  it('read the same everywhere: no <noun>, no bare header', () => {
    const columns = [{ header: 'ID', value: (r: { id: string }) => r.id }];
    expect(renderTable([], columns, palette(false), 'nodes')).toBe('no nodes');
    expect(renderTable([], columns, palette(false), 'tokens')).toBe('no tokens');
  });
});

describe('renderFields', () => {
  it('aligns labels', () => {
    expect(
      renderFields(
        [
          ['pid', '1'],
          ['socket', '/s'],
        ],
        plain,
      ),
    ).toBe('pid     1\nsocket  /s');
  });
});

describe('cell and formatDuration', () => {
  it('renders nothing as -, lists joined, objects as JSON', () => {
    expect(cell(null)).toBe('-');
    expect(cell([])).toBe('-');
    expect(cell(['a', 'b'])).toBe('a,b');
    expect(cell({ a: 1 })).toBe('{"a":1}');
    expect(cell(3)).toBe('3');
  });

  it('reads like an uptime', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(12)).toBe('12s');
    expect(formatDuration(450)).toBe('7m 30s');
    expect(formatDuration(7_500)).toBe('2h 5m');
    expect(formatDuration(3 * 86_400 + 4 * 3_600 + 59)).toBe('3d 4h');
    expect(formatDuration(86_400 + 30)).toBe('1d');
  });
});

describe('wantsColor', () => {
  it('colours a terminal unless NO_COLOR or TERM=dumb', () => {
    expect(wantsColor(true, {})).toBe(true);
    expect(wantsColor(false, {})).toBe(false);
    expect(wantsColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor(true, { TERM: 'dumb' })).toBe(false);
    expect(wantsColor(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColor(true, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });
});

describe('Printer', () => {
  const io = (stdoutIsTTY: boolean, stderrIsTTY: boolean) => ({
    stdout() {},
    stderr() {},
    stdoutIsTTY,
    stderrIsTTY,
    env: {},
  });

  it('colours stdout and stderr each by whether that stream is a terminal', () => {
    const redirected = new Printer(io(true, false), false);
    expect(redirected.colors).toBe(palette(true));
    expect(redirected.noteColors).toBe(palette(false)); // `svc node wait … 2>file`
    const piped = new Printer(io(false, true), false);
    expect(piped.colors).toBe(palette(false));
    expect(piped.noteColors).toBe(palette(true));
    expect(new Printer(io(true, true), true).noteColors).toBe(palette(false)); // --json
  });
});
