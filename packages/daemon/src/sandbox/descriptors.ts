/**
 * The descriptors bwrap inherits (`command.ts`), each opened just before the start by whoever
 * starts it: this process for its own spawn, or its launcher (launcher.c opens them the same
 * way). Opened last, so what a bind names is checked as late as it can be.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';
import { ApiError } from '../errors.ts';

/** Linux `O_PATH` (the same on every architecture Node runs on): a handle, not an open for I/O. */
const O_PATH = 0o10000000;

/**
 * A descriptor bwrap inherits: `p` a handle on the path itself (a bind's: `--bind-fd`), `r` the
 * file opened for reading (a copy's, `--file`, or the seccomp filter).
 */
export interface Opened {
  mode: 'p' | 'r';
  path: string;
}

/**
 * `opened` opened now. A handle (`p`) must be the path itself, no link followed on the way, and
 * name the path back: a directory swapped for a link since the plan leads nowhere. Throws 503
 * `sandbox_unavailable` when it cannot be, and nothing starts.
 */
export function openDescriptor(opened: Opened): number {
  const fd =
    opened.mode === 'p'
      ? openPath(opened.path)
      : tryOpen(opened.path, constants.O_RDONLY | constants.O_NONBLOCK);
  if (fd === null) {
    throw new ApiError(
      'sandbox_unavailable',
      `the sandbox could not start: ${opened.path} changed while it was made`,
    );
  }
  return fd;
}

/** Every one of `opens`, opened (`openDescriptor`); none left open when one fails. */
export function openDescriptors(opens: readonly Opened[]): number[] {
  const fds: number[] = [];
  try {
    for (const opened of opens) fds.push(openDescriptor(opened));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    throw error;
  }
  return fds;
}

/** A handle on `path` that is `path` itself (no link followed on the way), or `null`. */
function openPath(path: string): number | null {
  const fd = tryOpen(path, O_PATH | constants.O_NOFOLLOW);
  if (fd === null) return null; // gone since the plan
  try {
    // O_NOFOLLOW with O_PATH opens a link itself rather than failing: refused here.
    if (!fstatSync(fd).isSymbolicLink() && readlinkSync(`/proc/self/fd/${fd}`) === path) {
      return fd;
    }
  } catch {
    // Cannot be named back: refused below.
  }
  closeSync(fd);
  return null;
}

function tryOpen(path: string, flags: number): number | null {
  try {
    return openSync(path, flags);
  } catch {
    return null;
  }
}
