import { describe, expect, it } from 'vitest';
import { readTar, writeTar } from '../src/archive/index.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function field(block: Uint8Array, at: number, width: number): string {
  const raw = block.subarray(at, at + width);
  const end = raw.indexOf(0);
  return decoder.decode(end === -1 ? raw : raw.subarray(0, end));
}

describe('ustar writer', () => {
  const entries = [
    { name: 'plugin.json', data: encoder.encode('{"name":"acme"}\n') },
    { name: 'README.md', data: encoder.encode('# acme\n') },
  ];
  const bytes = writeTar(entries);

  it('pads to 512-byte blocks and ends with two zero blocks', () => {
    // two headers, two one-block bodies, two end blocks
    expect(bytes.length).toBe(6 * 512);
    expect(bytes.subarray(4 * 512).every((b) => b === 0)).toBe(true);
  });

  it('sorts entries by name', () => {
    expect(readTar(bytes).map((e) => e.name)).toEqual(['README.md', 'plugin.json']);
  });

  it('is deterministic whatever the input order', () => {
    expect(writeTar([...entries].reverse())).toEqual(bytes);
  });

  it('writes fixed header fields: ustar magic, mode 0644, uid/gid 0, mtime 0, regular file', () => {
    const header = bytes.subarray(0, 512);
    expect(field(header, 0, 100)).toBe('README.md');
    expect(field(header, 100, 8)).toBe('0000644');
    expect(field(header, 108, 8)).toBe('0000000');
    expect(field(header, 116, 8)).toBe('0000000');
    expect(field(header, 124, 12)).toBe('00000000007');
    expect(field(header, 136, 12)).toBe('00000000000');
    expect(header[156]).toBe(0x30);
    expect(field(header, 257, 6)).toBe('ustar');
    expect(field(header, 263, 2)).toBe('00');
  });

  it('writes the POSIX checksum: the byte sum with the checksum field read as spaces', () => {
    const header = bytes.subarray(0, 512);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
    expect(field(header, 148, 8)).toBe(sum.toString(8).padStart(6, '0'));
    expect(header[154]).toBe(0);
    expect(header[155]).toBe(0x20);
  });

  it('round-trips entry contents', () => {
    const read = readTar(bytes);
    expect(decoder.decode(read[1]?.data)).toBe('{"name":"acme"}\n');
  });

  it('handles an entry of exactly one block and an empty entry', () => {
    const block = new Uint8Array(512).fill(65);
    const tar = writeTar([
      { name: 'a', data: block },
      { name: 'b', data: new Uint8Array() },
    ]);
    expect(tar.length).toBe(512 * 5);
    const read = readTar(tar);
    expect(read[0]?.data).toEqual(block);
    expect(read[1]?.data.length).toBe(0);
  });

  it('refuses a name longer than 100 bytes', () => {
    expect(() => writeTar([{ name: 'x'.repeat(101), data: new Uint8Array() }])).toThrow(
      /100 bytes/,
    );
  });
});

describe('ustar reader', () => {
  it('rejects a header with a bad checksum', () => {
    const bytes = writeTar([{ name: 'plugin.json', data: encoder.encode('{}') }]);
    bytes[0] = 'q'.charCodeAt(0);
    expect(() => readTar(bytes)).toThrow(/checksum/);
  });

  // A negative size once sent the reader back to the same header forever: the size field must be
  // octal digits only.
  // A loop, not `it.each`: this file also runs under the runtime matrix's own harness.
  for (const size of ['-0001000', '+0001000', '0x1000', '0001 00']) {
    it(`rejects a size field that is not octal digits: ${JSON.stringify(size)}`, () => {
      const bytes = writeTar([{ name: 'plugin.json', data: encoder.encode('{}') }]);
      bytes.set(new Uint8Array(12), 124);
      bytes.set(encoder.encode(size), 124);
      let sum = 0;
      for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : (bytes[i] ?? 0);
      bytes.set(encoder.encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
      expect(() => readTar(bytes)).toThrow(/bad size/);
    });
  }

  it('rejects a truncated entry', () => {
    const bytes = writeTar([{ name: 'plugin.json', data: new Uint8Array(600) }]);
    expect(() => readTar(bytes.subarray(0, 1024))).toThrow(/truncated/);
  });
});
