/**
 * File bytes on the wire: UTF-8 text when they are, else base64 (`files.read`), and back
 * (`files.write`).
 */
import { ApiError } from '../errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// Standard alphabet, padding optional; a lone trailing character encodes no byte.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes `content` stands for; malformed base64 is refused, never half-decoded. */
export function decodeContent(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (typeof content !== 'string') {
    throw new ApiError('validation_failed', 'content must be a string', { field: 'content' });
  }
  if (encoding === 'utf8') return Buffer.from(content, 'utf8');
  if (encoding !== 'base64') {
    throw new ApiError('validation_failed', "encoding must be 'utf8' or 'base64'", {
      field: 'encoding',
    });
  }
  const stripped = content.replace(/=+$/, '');
  if (!BASE64.test(content) || stripped.length % 4 === 1) {
    throw new ApiError('validation_failed', 'content is not valid base64', { field: 'content' });
  }
  return Buffer.from(content, 'base64');
}

/**
 * `slice` as text when it is valid UTF-8, else base64. When more bytes follow (`cut`) and the
 * slice ends inside a character, it is answered up to that character, which the next read
 * starts with. `bytes` is how many bytes of `slice` the answer holds.
 */
export function textOrBase64(
  slice: Buffer,
  cut: boolean,
): { content: string; encoding: 'utf8' | 'base64'; bytes: number } {
  const text = utf8(slice);
  if (text !== null) return { content: text, encoding: 'utf8', bytes: slice.length };
  if (cut) {
    const end = lastCharacterStart(slice);
    if (end > 0) {
      const shorter = utf8(slice.subarray(0, end));
      if (shorter !== null) return { content: shorter, encoding: 'utf8', bytes: end };
    }
  }
  return { content: slice.toString('base64'), encoding: 'base64', bytes: slice.length };
}

function utf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Where the character the slice ends inside begins, or the slice's length when its last
 * character is whole (or the tail is no UTF-8 at all, which the caller then sends as base64).
 */
function lastCharacterStart(slice: Buffer): number {
  // A UTF-8 character is at most 4 bytes: its lead byte is among the last 4.
  for (let i = slice.length - 1; i >= 0 && i >= slice.length - 4; i--) {
    const byte = slice[i]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return i + length > slice.length ? i : slice.length;
  }
  return slice.length;
}
