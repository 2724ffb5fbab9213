/** Paths as the checks see them: realpaths, with what is missing of them kept as written. */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { posix } from 'node:path';
import { ApiError } from '../errors.ts';
import { type Access, type FilesAccess, joinReal, lexicalOf, permit } from './access.ts';
import { errnoOf, fsError, invalidPath, show } from './fs-errors.ts';

/** The node tools take what a model writes, not what the route's schema already checked. */
export function checkedPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw invalidPath(`path must be absolute; received ${show(String(path))}`);
  }
  if (path.includes('\0')) throw invalidPath('path must not contain a NUL byte');
  return path;
}

export interface Resolved {
  /** The realpath of the longest existing prefix, then the missing segments as written. */
  path: string;
  existing: string;
  missing: string[];
}

/** `path` resolved, checked against `who` for `access`; `missing` when it does not exist. */
export async function resolvePermitted(path: string, access: Access, who: FilesAccess) {
  const real = await resolveFor(path, path, access, who);
  permit(path, real.path, access, who);
  return { path: real.path, missing: real.missing.length > 0 };
}

/**
 * `resolve`, but a path the caller may not reach is refused as such even where resolving it
 * failed (a directory it cannot search): its scopes are checked on the path as written then.
 */
export async function resolveFor(path: string, given: string, access: Access, who: FilesAccess) {
  try {
    return await resolve(path, given);
  } catch (error) {
    if (error instanceof ApiError) permit(given, lexicalOf(given), access, who);
    throw error;
  }
}

/**
 * The realpath of `path`, or, when it does not exist, of its longest existing prefix followed by
 * the rest as written: a missing path is checked against the scopes before it is reported
 * missing, so a caller learns nothing of paths outside its directories.
 */
export async function resolve(path: string, given: string, links = 0): Promise<Resolved> {
  const missing: string[] = [];
  let head = path;
  for (;;) {
    try {
      const existing = await realpath(head);
      // Normalized: a `..` after a missing segment climbs out of `existing` (whose realpath has
      // no link to climb through), and the scopes must judge where it lands.
      return { path: posix.normalize(joinReal(existing, ...missing)), existing, missing };
    } catch (error) {
      const code = errnoOf(error);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || head === '/') {
        throw fsError(error, given);
      }
      // A link whose target is missing leads where it points: that is what the scopes must
      // cover, else a 404 for it would tell whether a path outside them exists.
      const target = await danglingTarget(head);
      if (target !== null) {
        if (links >= MAX_LINKS) throw invalidPath(`${show(given)} leads through too many links`);
        return resolve(joinReal(target, ...missing), given, links + 1);
      }
      missing.unshift(posix.basename(head));
      head = posix.dirname(head);
    }
  }
}

/** As the kernel's own bound on links followed in one path (Linux `MAXSYMLINKS`). */
export const MAX_LINKS = 40;

/** Where `head` points when it is a symbolic link (absolute, as written); else `null`. */
export async function danglingTarget(head: string): Promise<string | null> {
  try {
    if (!(await lstat(head)).isSymbolicLink()) return null;
    return posix.resolve(await realpath(posix.dirname(head)), await readlink(head));
  } catch {
    return null;
  }
}
