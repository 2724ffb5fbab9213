/**
 * The bytes of uploads on disk: `SVC_HOME/uploads/<id>`, 0600, written as a temp file, fsynced
 * and renamed, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto';
import { constants, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isId } from '@svc/protocol';
import type { Store } from '../store/index.ts';

/**
 * Makes the directory and removes temp files and files whose record never committed (a crash
 * between the rename and the record).
 */
export function prepareUploadDir(dir: string, store: Pick<Store, 'uploads'>): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(dir)) {
    if (!isId('upload', name) || store.uploads.get(name) === undefined) {
      rmSync(join(dir, name), { force: true, recursive: true });
    }
  }
}

/** Writes `bytes` to `<dir>/<id>` atomically: temp file, fsync, rename, directory fsync. */
export async function writeUploadBytes(
  dir: string,
  id: string,
  bytes: Uint8Array,
): Promise<string> {
  const target = join(dir, id);
  const temp = join(dir, `.${id}.${randomBytes(4).toString('hex')}.tmp`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, 0o600);
  let renamed = false;
  try {
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
  const dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  await dirHandle
    .sync()
    .catch(() => {})
    .finally(() => dirHandle.close());
  return target;
}
