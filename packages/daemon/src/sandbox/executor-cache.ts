/**
 * Where the sandbox's C executor is built: once per machine user, in
 * `${XDG_CACHE_HOME:-$HOME/.cache}/svc`, not once per daemon home (a test suite's dozens of fresh
 * homes each compiled it again, seconds under load). That directory lies outside `SVC_HOME`, so
 * every sandbox plan hides it (settings.ts), no node writing there whatever it may bind, and the
 * build trusts only a binary this user owns and alone may write (executor-build.ts). Where it
 * cannot be this user's own writable directory (a read-only HOME, another user's directory, a
 * link), the daemon home's cache serves, as `SVC_HOME` is hidden anyway.
 */
import { accessSync, chmodSync, constants, lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The per-user cache directory, whether or not it exists (what plans hide). */
export function userExecutorCache(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  // The XDG spec: a relative value is invalid, and ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  return join(base, 'svc');
}

/** The directory this daemon builds and finds its executor in, made (0700) if need be. */
export function executorCacheDir(svcHome: string): string {
  const dir = userExecutorCache();
  return ownWritableDirectory(dir) ? dir : join(svcHome, 'cache');
}

function ownWritableDirectory(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Not a link: what the plan hides and the binary the build trusts stay where they were named.
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.()) return false;
    // Made by something older or looser: only this user lists or renames in it.
    if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
