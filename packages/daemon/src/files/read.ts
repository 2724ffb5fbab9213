import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { FILES_READ_DEFAULT_BYTES } from '@svc/protocol';
import type { FilesAccess } from './access.ts';
import { textOrBase64 } from './content.ts';
import { errnoOf, fsCall, fsError, invalidPath, missing, show } from './fs-errors.ts';
import { permitOpened } from './opened.ts';
import { checkedPath, resolvePermitted } from './resolve.ts';

export interface FileReadInput {
  path: string;
  offset?: number | undefined;
  max_bytes?: number | undefined;
}

/** A slice of a regular file: UTF-8 text when it is, else base64 (`./content.ts`). */
export async function readFileSlice(input: FileReadInput, who: FilesAccess) {
  const path = checkedPath(input.path);
  const offset = input.offset ?? 0;
  const maxBytes = input.max_bytes ?? FILES_READ_DEFAULT_BYTES;
  const real = await resolvePermitted(path, 'read', who);
  if (real.missing) throw missing(path);
  const info = await fsCall(lstat(real.path), path);
  if (info.isDirectory()) {
    throw invalidPath(`${show(path)} is a directory; list it with files.list`);
  }
  if (!info.isFile()) throw invalidPath(`${show(path)} is not a regular file`);
  // O_NOFOLLOW: a link swapped in since the check is refused, not followed; O_NONBLOCK: a FIFO
  // swapped in cannot hold the open.
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await fsCall(open(real.path, flags), path);
  try {
    await permitOpened(handle.fd, path, 'read', who);
    const opened = await fsCall(handle.stat(), path);
    if (!opened.isFile()) throw invalidPath(`${show(path)} is not a regular file`);
    // One byte past the slice tells whether more follows, whatever `size` says (/proc files).
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length && Number.isSafeInteger(offset + buffer.length)) {
      const { bytesRead } = await handle
        .read(buffer, filled, buffer.length - filled, offset + filled)
        .catch((error: unknown) => {
          // A file that says it is empty yet fails to read is a pseudo-file (`/proc/self/mem`):
          // not the disk's I/O error it would be on a regular file.
          if (errnoOf(error) === 'EIO' && opened.size === 0) {
            throw invalidPath(`${show(path)} is not a regular file`);
          }
          throw fsError(error, path);
        });
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const slice = buffer.subarray(0, Math.min(filled, maxBytes));
    const { content, encoding, bytes } = textOrBase64(slice, filled > maxBytes);
    return { path, size: opened.size, offset, content, encoding, truncated: filled > bytes };
  } finally {
    await handle.close();
  }
}
