import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { FILES_WRITE_MAX_BYTES } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { noteWrite, tempName, unnote } from '../nodes/workspace/write-notes.ts';
import { type FilesAccess, joinReal, permit } from './access.ts';
import { decodeContent } from './content.ts';
import { errnoOf, fsCall, fsError, invalidPath, show } from './fs-errors.ts';
import { fdPath, openDirectory, openedPath } from './opened.ts';
import { checkedPath, resolveFor } from './resolve.ts';

export interface FileWriteInput {
  path: string;
  content: string;
  encoding?: 'utf8' | 'base64' | undefined;
  create_parents?: boolean | undefined;
}

/**
 * Writes a whole file atomically: a temp file in the target's directory, fsync, rename over the
 * target (a link there is replaced, not followed). On any failure the temp file is removed and
 * the old file is untouched. Content over `FILES_WRITE_MAX_BYTES` decoded is refused with 413.
 */
export async function writeFileAtomic(input: FileWriteInput, who: FilesAccess) {
  const path = checkedPath(input.path);
  const name = posix.basename(path);
  if (path.endsWith('/') || name === '.' || name === '..' || path === '/') {
    throw invalidPath(`${show(path)} does not name a file`);
  }
  const bytes = decodeContent(input.content, input.encoding ?? 'utf8');
  if (bytes.length > FILES_WRITE_MAX_BYTES) {
    throw new ApiError(
      'payload_too_large',
      `content is ${bytes.length} bytes; a write takes at most ${FILES_WRITE_MAX_BYTES} (1 MiB)`,
      { field: 'content', received: bytes.length },
    );
  }
  const parent = await resolveFor(posix.dirname(path), path, 'rw', who);
  const target = joinReal(parent.path, name);
  permit(path, target, 'rw', who);
  const dir = parent.path;
  if (parent.missing.length > 0) {
    if (input.create_parents !== true) {
      throw new ApiError(
        'not_found',
        `the directory of ${show(path)} does not exist (create_parents makes it)`,
        { field: 'path' },
      );
    }
    await makeParents(parent.existing, parent.missing, path);
  } else {
    const info = await fsCall(lstat(dir), path);
    if (!info.isDirectory()) {
      throw invalidPath(`a parent of ${show(path)} is not a directory`);
    }
  }
  // The directory is opened once and checked as opened; the temp file, the rename and the sync
  // then go through that descriptor, so a directory swapped for a link since the check is never
  // written through.
  const opened = await openDirectory(dir, path);
  try {
    const at = await openedPath(opened.fd, path);
    if (at !== null) permit(path, joinReal(at, name), 'rw', who);
    const base = at === null ? dir : fdPath(opened.fd);
    // A directory at the target is refused by the rename (EISDIR), once the temp file exists,
    // so that refusal takes the same cleanup path as any other failure.
    const old = await lstat(joinReal(base, name)).catch(() => null);
    // Only a file (or a link, replaced as rename(2) does) is written over: a FIFO, a socket or a
    // device node there (`/dev/null`, a daemon's socket) would be destroyed by the rename.
    if (old !== null && !old.isFile() && !old.isSymbolicLink() && !old.isDirectory()) {
      throw invalidPath(`${show(path)} is not a regular file`);
    }
    const named = tempName();
    const temp = joinReal(base, named);
    // Noted first, by the directory's own path (`base` may be a /proc fd path), so that a writer
    // killed before it can remove the temp file leaves word of it (`write-notes.ts`).
    const note =
      who.pending === undefined ? null : await noteWrite(who.pending, joinReal(at ?? dir, named));
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await fsCall(open(temp, flags, 0o666), path).catch(async (error: unknown) => {
      if (note !== null) await unnote(note);
      throw error;
    });
    let renamed = false;
    try {
      try {
        // Replacing a file keeps its permission bits (not setuid and the like); a new one gets
        // the umask's.
        if (old?.isFile()) await handle.chmod(old.mode & 0o777);
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsCall(rename(temp, joinReal(base, name)), path);
      renamed = true;
    } finally {
      if (!renamed) await unlink(temp).catch(() => {});
      if (note !== null) await unnote(note);
    }
    // The rename is durable once the directory entry is; best effort (some file systems refuse).
    await opened.sync().catch(() => {});
  } finally {
    await opened.close();
  }
  return { path, size: bytes.length };
}

/** Makes each missing parent under the real `existing`, one level at a time (never through a link). */
async function makeParents(existing: string, segments: string[], given: string): Promise<void> {
  if (segments.some((s) => s === '.' || s === '..')) {
    throw invalidPath(`${show(given)} has a '.' or '..' below a directory that is missing`);
  }
  let dir = existing;
  for (const segment of segments) {
    dir = joinReal(dir, segment);
    try {
      await mkdir(dir, 0o777);
    } catch (error) {
      if (errnoOf(error) === 'ENOTDIR') {
        throw invalidPath(`a parent of ${show(given)} is not a directory`);
      }
      if (errnoOf(error) !== 'EEXIST') throw fsError(error, given);
      // Made meanwhile by someone else: only a real directory will do.
      const info = await fsCall(lstat(dir), given);
      if (!info.isDirectory()) {
        throw invalidPath(`a parent of ${show(given)} is not a directory`);
      }
    }
  }
}
