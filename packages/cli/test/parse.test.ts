import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.ts';
import { readBody } from '../src/parse/body.ts';
import { parseDuration } from '../src/parse/duration.ts';
import { parseListenAddress } from '../src/parse/listen.ts';
import { commandLine } from '../src/parse/shell.ts';

describe('parseDuration', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    ['15m', 900],
    ['12h', 43_200],
    ['30d', 2_592_000],
    ['2w', 1_209_600],
    ['1h30m', 5_400],
  ])('%s is %d seconds', (text, seconds) => {
    expect(parseDuration(text, '--expires-in')).toBe(seconds);
  });

  it.each(['', '0', '0s', 'soon', '10x', '1.5h', '-5m', 'h', '5m junk'])(
    'refuses %j naming the option',
    (text) => {
      expect(() => parseDuration(text, '--expires-in')).toThrow(UsageError);
      expect(() => parseDuration(text, '--expires-in')).toThrow(/--expires-in/);
    },
  );
});

describe('parseListenAddress', () => {
  it('takes a port, host:port and [v6]:port', () => {
    expect(parseListenAddress('8080', '--tcp')).toEqual({ port: 8080 });
    expect(parseListenAddress('0', '--tcp')).toEqual({ port: 0 });
    expect(parseListenAddress('127.0.0.1:9', '--tcp')).toEqual({ host: '127.0.0.1', port: 9 });
    expect(parseListenAddress('[::1]:7000', '--tcp')).toEqual({ host: '::1', port: 7000 });
    expect(parseListenAddress('localhost:0', '--tcp')).toEqual({ host: 'localhost', port: 0 });
  });

  it('names the host rule when the host is a name', () => {
    expect(() => parseListenAddress('example.com:0', '--tcp')).toThrow(
      "--tcp host must be an IP address or localhost (e.g. 127.0.0.1:8787); received 'example.com'",
    );
  });

  it.each([
    '',
    'abc',
    '70000',
    'host:',
    ':80',
    '1.2.3.4:99999',
    'example.com:0',
    '[::g]:80',
    '1.2.3:80',
  ])('refuses %j', (text) => {
    expect(() => parseListenAddress(text, '--tcp')).toThrow(UsageError);
  });
});

describe('readBody', () => {
  it('parses inline JSON, @file and stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    const file = join(dir, 'body.json');
    writeFileSync(file, '{"from":"file"}');
    expect(await readBody('{"a":1}')).toEqual({ a: 1 });
    expect(await readBody(`@${file}`)).toEqual({ from: 'file' });
    expect(await readBody('-', async () => '[1,2]')).toEqual([1, 2]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses bad JSON and a missing file before anything is sent', async () => {
    await expect(readBody('{oops')).rejects.toThrow(/--data: the argument is not valid JSON/);
    await expect(readBody('@/nonexistent/x.json')).rejects.toThrow(/cannot read .*ENOENT/);
    // A device never ends: refused before any of it is read.
    await expect(readBody('@/dev/zero')).rejects.toThrow(
      /--data @\/dev\/zero: \/dev\/zero is not a regular file/,
    );
    await expect(readBody('-', async () => 'nope')).rejects.toThrow(UsageError);
  });
});

describe('commandLine', () => {
  it('keeps one argument as shell text', () => {
    expect(commandLine(['ls | wc -l'])).toBe('ls | wc -l');
  });

  it('quotes several words so each stays one word', () => {
    expect(commandLine(['sh', '-c', 'exit 3'])).toBe("sh -c 'exit 3'");
    expect(commandLine(['echo', "it's", '$HOME'])).toBe("echo 'it'\\''s' '$HOME'");
  });
});
