import { constants } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { UsageError } from '../errors.ts';

/** How much content a command sends, and its refusal after the size: "the daemon takes at most …". */
export interface ContentLimit {
  readonly bytes: number;
  readonly rule: string;
}

/**
 * The bytes of a local file, refused (exit 2) before they can exhaust memory: only a regular file
 * is read (a device such as /dev/zero or a pipe never ends), one larger than the limit is refused
 * from its size alone, and at most one byte past the limit is ever read, so a file that grows
 * meanwhile (or a /proc file, whose size reads as 0) is still bounded. `label` prefixes the
 * messages (`--from`), naming the option the file came from.
 */
export async function readLocal(
  file: string,
  limit: ContentLimit,
  label?: string,
): Promise<Buffer> {
  const prefix = label === undefined ? '' : `${label}: `;
  const unreadable = (err: unknown) =>
    new UsageError(`${prefix}cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`);
  const notRegular = () => new UsageError(`${prefix}${file} is not a regular file`);
  const tooLarge = (size: string) => new UsageError(`${prefix}${file} is ${size}; ${limit.rule}`);
  const info = await stat(file).catch((err: unknown) => {
    throw unreadable(err);
  });
  if (!info.isFile()) throw notRegular();
  if (info.size > limit.bytes) throw tooLarge(`${info.size} bytes`);
  // O_NONBLOCK: should the path turn into a pipe after the stat, opening it must not hang.
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw unreadable(err);
  }
  try {
    if (!(await handle.stat()).isFile()) throw notRegular();
    const buffer = Buffer.alloc(limit.bytes + 1);
    let size = 0;
    while (size < buffer.length) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, size);
      if (bytesRead === 0) break;
      size += bytesRead;
    }
    if (size > limit.bytes) throw tooLarge(`more than ${limit.bytes} bytes`);
    return buffer.subarray(0, size);
  } catch (err) {
    throw err instanceof UsageError ? err : unreadable(err);
  } finally {
    await handle.close();
  }
}

/**
 * Stdin up to one byte past the limit; a larger stream is refused (exit 2) without reading it
 * all, so its whole size is never known: the refusal says "more than" the limit.
 */
export async function readStdinBounded(limit: ContentLimit): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > limit.bytes) {
      throw new UsageError(`the content on stdin is more than ${limit.bytes} bytes; ${limit.rule}`);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * A write's content: `--data` as text, `--from` a local file, or stdin without either; bounded by
 * the limit whichever it came from, so every source is refused (exit 2) past it the same way.
 */
export async function readContent(
  opts: { data?: string; from?: string },
  limit: ContentLimit,
): Promise<Buffer> {
  if (opts.data !== undefined && opts.from !== undefined) {
    throw new UsageError('give --data or --from, not both (without either, stdin is read)');
  }
  if (opts.from !== undefined) return readLocal(opts.from, limit, '--from');
  if (opts.data === undefined) return readStdinBounded(limit);
  const bytes = Buffer.from(opts.data, 'utf8');
  if (bytes.length > limit.bytes) {
    throw new UsageError(`the content is ${bytes.length} bytes; ${limit.rule}`);
  }
  return bytes;
}
