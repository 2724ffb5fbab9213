// Reads what an installer reads from a plugin archive: `plugin.json` out of the ustar bytes
// (POSIX ustar: name in header bytes 0-99, size in octal at 124-135, data in 512-byte blocks).
import type { Manifest } from '@svc/plugin-kit';

const BLOCK = 512;
const decoder = new TextDecoder();

export async function readManifest(response: Response): Promise<Manifest> {
  const tar = new Uint8Array(await response.arrayBuffer());
  for (let at = 0; at + BLOCK <= tar.length && tar[at] !== 0; ) {
    const name = decoder.decode(tar.subarray(at, at + 100)).replace(/\0.*$/s, '');
    const size = Number.parseInt(decoder.decode(tar.subarray(at + 124, at + 136)), 8);
    if (name === 'plugin.json')
      return JSON.parse(decoder.decode(tar.subarray(at + BLOCK, at + BLOCK + size)));
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new Error('no plugin.json in the archive');
}
