/**
 * A minimal POSIX ustar writer and reader (IEEE Std 1003.1, pax "ustar Interchange Format").
 * The writer makes deterministic bytes: entries sorted by name, mtime 0, uid/gid 0, mode 0644,
 * no user or group names, so equal content always hashes to the same ETag.
 */

export interface TarEntry {
  /** A relative path of at most 100 bytes (the kit never needs the `prefix` field). */
  name: string;
  data: Uint8Array;
}

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function writeTar(entries: readonly TarEntry[]): Uint8Array<ArrayBuffer> {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const size = sorted.reduce((sum, e) => sum + BLOCK + padded(e.data.length), 2 * BLOCK);
  const out = new Uint8Array(size); // zero-filled: padding and the two end-of-archive blocks
  let offset = 0;
  for (const entry of sorted) {
    out.set(header(entry.name, entry.data.length), offset);
    out.set(entry.data, offset + BLOCK);
    offset += BLOCK + padded(entry.data.length);
  }
  return out;
}

export function readTar(bytes: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) break; // end-of-archive marker
    if (checksum(block) !== octal(block, 148, 8)) {
      throw new TypeError(`tar: bad header checksum at byte ${offset}`);
    }
    const prefix = text(block, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + text(block, 0, 100);
    const length = octal(block, 124, 12);
    if (!Number.isSafeInteger(length)) throw new TypeError(`tar: bad size of entry ${name}`);
    const start = offset + BLOCK;
    if (start + length > bytes.length) throw new TypeError(`tar: entry ${name} is truncated`);
    // Type '0' or NUL is a regular file; directories and links carry no data the kit needs.
    const type = block[156];
    if (type === 0x30 || type === 0) {
      entries.push({ name, data: bytes.slice(start, start + length) });
    }
    offset = start + padded(length);
  }
  return entries;
}

function header(name: string, length: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const nameBytes = encoder.encode(name);
  if (nameBytes.length > 100) throw new TypeError(`tar: entry name longer than 100 bytes: ${name}`);
  block.set(nameBytes, 0);
  field(block, 100, 8, '0000644'); // mode
  field(block, 108, 8, '0000000'); // uid
  field(block, 116, 8, '0000000'); // gid
  field(block, 124, 12, length.toString(8).padStart(11, '0')); // size
  field(block, 136, 12, '00000000000'); // mtime: the epoch, for deterministic bytes
  block[156] = 0x30; // typeflag '0': regular file
  field(block, 257, 6, 'ustar'); // magic "ustar\0"
  block.set(encoder.encode('00'), 263); // version
  // The checksum is computed with its own field read as eight spaces, then written as six octal
  // digits, NUL, space.
  field(block, 148, 8, checksum(block).toString(8).padStart(6, '0'));
  block[155] = 0x20;
  return block;
}

/** Sum of the header bytes with the checksum field counted as spaces. */
function checksum(block: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum;
}

/** Writes `value` NUL-terminated into a field of `width` bytes. */
function field(block: Uint8Array, at: number, width: number, value: string): void {
  block.set(encoder.encode(value).subarray(0, width - 1), at);
}

function text(block: Uint8Array, at: number, width: number): string {
  const raw = block.subarray(at, at + width);
  const end = raw.indexOf(0);
  return decoder.decode(end === -1 ? raw : raw.subarray(0, end));
}

/**
 * A numeric field: octal digits, padded with spaces or NULs. Anything else (a sign, a base-256
 * value) is refused, so a hostile header cannot give a negative size that never advances.
 */
function octal(block: Uint8Array, at: number, width: number): number {
  const value = text(block, at, width).trim();
  if (value === '') return 0;
  if (!/^[0-7]+$/.test(value)) return Number.NaN;
  return Number.parseInt(value, 8);
}

function padded(length: number): number {
  return Math.ceil(length / BLOCK) * BLOCK;
}
