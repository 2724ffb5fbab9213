/**
 * Opened descriptors checked for what they turned out to open: the check of a path and its open
 * are two steps, and the path may change in between.
 */
import { constants, existsSync } from 'node:fs';
import { open, readlink } from 'node:fs/promises';
import { ApiError } from '../errors.ts';
import { type Access, type FilesAccess, permit } from './access.ts';
import { fsCall, show } from './fs-errors.ts';

/** The directory at `real`, opened without following a link swapped in since it was checked. */
export function openDirectory(real: string, given: string) {
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  return fsCall(open(real, flags), given);
}

/** Whether this system shows open descriptors as paths (Linux's `/proc`); read once. */
export const PROC_FDS = existsSync('/proc/self/fd');

/**
 * What an open descriptor names, read back through `/proc/self/fd` (Linux): the check of a path
 * and its open are two steps, and a directory on the way may have been swapped for a link in
 * between; `O_NOFOLLOW` guards only the last component. `null` only where there is no `/proc`.
 * `readlink`, not `realpath`: the kernel's name of what is open, read without walking the path
 * again, where a component swapped for a link since would lead elsewhere; and one that cannot be
 * read (renamed away meanwhile, removed) is a refusal, never taken for a missing `/proc`, which
 * would send the caller's work down the path it gave.
 */
export async function openedPath(fd: number, given: string): Promise<string | null> {
  if (!PROC_FDS) return null;
  const at = await readlink(fdPath(fd)).catch(() => null);
  if (at === null || !at.startsWith('/') || at.endsWith(' (deleted)')) {
    throw new ApiError('conflict', `${show(given)} changed while it was opened; try again`, {
      field: 'path',
    });
  }
  return at;
}

/** The descriptor as a path: a name under it resolves in the directory that was opened. */
export function fdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** `permit` on what `fd` turned out to open. */
export async function permitOpened(fd: number, given: string, access: Access, who: FilesAccess) {
  const at = await openedPath(fd, given);
  if (at !== null) permit(given, at, access, who);
}
