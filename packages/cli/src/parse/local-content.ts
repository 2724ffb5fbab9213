import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.ts';

/** The bytes of a local file named by `--from`; a file that cannot be read is a usage error. */
export async function readLocal(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new UsageError(
      `--from: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
}

/**
 * Stdin up to one byte past `limit`: a larger stream is refused by the caller without reading
 * it all.
 */
export async function readStdinBounded(limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > limit) break;
  }
  return Buffer.concat(chunks);
}
