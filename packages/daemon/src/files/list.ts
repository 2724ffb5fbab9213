import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { FILES_LIST_DEFAULT_LIMIT } from '@svc/protocol';
import { type FilesAccess, permit } from './access.ts';
import { fsCall, invalidPath, missing, show } from './fs-errors.ts';
import { fdPath, openDirectory, openedPath } from './opened.ts';
import { checkedPath, resolvePermitted } from './resolve.ts';

export interface FileListInput {
  path: string;
  limit?: number | undefined;
}

export interface FileEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modified_at: string;
}

/** A directory's entries sorted by name, cut at `limit` (`truncated` then). */
export async function listDirectory(input: FileListInput, who: FilesAccess) {
  const path = checkedPath(input.path);
  const limit = input.limit ?? FILES_LIST_DEFAULT_LIMIT;
  const real = await resolvePermitted(path, 'read', who);
  if (real.missing) throw missing(path);
  const info = await fsCall(lstat(real.path), path);
  if (!info.isDirectory()) {
    throw invalidPath(`${show(path)} is not a directory; read it with files.read`);
  }
  const opened = await openDirectory(real.path, path);
  try {
    const at = await openedPath(opened.fd, path);
    if (at !== null) permit(path, at, 'read', who);
    const base = at === null ? real.path : fdPath(opened.fd);
    // As bytes: a name that is not UTF-8 is still an entry, shown with U+FFFD for its bad bytes
    // and looked at by its own bytes.
    const names = (await fsCall(readdir(base, { encoding: 'buffer' }), path)).sort(Buffer.compare);
    const shown = names.slice(0, limit);
    // An entry removed while the directory is listed is left out.
    const stats = await Promise.all(
      shown.map((n) => lstat(Buffer.concat([Buffer.from(`${base}/`), n])).catch(() => null)),
    );
    const entries: FileEntry[] = [];
    shown.forEach((name, i) => {
      const s = stats[i];
      if (s != null) entries.push(entryOf(name.toString('utf8'), s));
    });
    return { path, entries, truncated: names.length > limit };
  } finally {
    await opened.close();
  }
}

function entryOf(name: string, s: Stats): FileEntry {
  const type = s.isFile()
    ? 'file'
    : s.isDirectory()
      ? 'directory'
      : s.isSymbolicLink()
        ? 'symlink'
        : 'other';
  return { name, type, size: s.size, modified_at: s.mtime.toISOString() };
}
