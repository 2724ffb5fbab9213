/**
 * Host files by absolute path (`files.read`, `files.write`, `files.list`; docs/api-v1.md
 * "Files"). Every path is resolved to its realpath first and that is what the caller's files
 * scopes must cover, so a symbolic link never leads a caller out of its directories. Refusals are
 * `ApiError`s naming only the path the caller gave: the route answers them, the node tools hand
 * them to the model.
 */
import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { isWithin, listCovers, type Scope, tryParseScope } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { type Layer, viewAllows } from '../sandbox/view.ts';
import { show } from './fs-errors.ts';

/** Who reaches which paths. */
export interface FilesAccess {
  /** The caller's scope list; `null` is the owner's (every path). */
  scopes: readonly Scope[] | null;
  /** Real directories reached without a files scope, read and write: a node's own worktree. */
  roots?: readonly string[];
  /**
   * The token's own scope list, which a refusal reports as `received` when `scopes` holds more
   * (an app's live shares); default `scopes`.
   */
  received?: readonly Scope[];
  /**
   * The realpath of the daemon's home: its tokens, database, keys and uploads, which no token but
   * the owner's reaches whatever its scopes say (a grant of `~` would otherwise hand over the
   * owner token). Its worktrees stay reachable as the scopes allow.
   */
  home?: string | undefined;
  /**
   * Fenced as the home is, for whoever the home is fenced from, each with what lies below it, as
   * written and as it resolves: what every sandbox hides (the person's secret stores; svc's
   * cache, whose binaries the daemon and its agent hosts run unconfined) and the daemon's private
   * temporary directory (the seccomp filter every sandbox loads). A files scope that reached
   * them would undo the sandbox from outside it.
   */
  hidden?: readonly string[] | undefined;
  /**
   * Where a write notes its temp file while it exists (`SVC_HOME/run/writes`), for the daemon to
   * remove should the writer be killed outright; none, no note.
   */
  pending?: string | undefined;
  /**
   * A node's sandbox view (`../sandbox/view.ts`): when given, it alone decides what is reached,
   * so the node's file tools see exactly what its shell sees; `scopes` only names refusals.
   */
  view?: readonly Layer[] | undefined;
}

export type Access = 'read' | 'rw';

/** The home as the checks see it: its realpath (a home reached through a link is the same). */
export function realHome(home: string): string {
  try {
    return realpathSync(home);
  } catch {
    return posix.resolve(home);
  }
}

/**
 * Refuses `real` unless a root holds it or a scope covers `svc:files:<access>:user:<real>`. A
 * refusal names that scope; when a link was followed it names the scope of the path as given,
 * so where a link points (it may be the daemon's home) never reaches the answer.
 */
export function permit(given: string, real: string, access: Access, who: FilesAccess): void {
  const wanted = wantedScope(access, real);
  if (who.view !== undefined) {
    // The home and /proc stay fenced whatever the view says, but for the node's own worktree.
    const own = who.roots?.some((root) => isWithin(root, real)) === true;
    if (viewAllows(who.view, real, access) && (own || !fenced(real, who))) return;
  } else {
    // Every scope reaches every path: the owner's everywhere, a viewer session's or a node's
    // (fenced, `home` set) but where `fenced` says.
    if (who.scopes === null && (who.home === undefined || !fenced(real, who))) return;
    if (who.roots?.some((root) => isWithin(root, real)) === true) return;
  }
  const covered = wanted !== null && (who.scopes === null || listCovers(who.scopes, wanted));
  if (covered || (who.view !== undefined && fenced(real, who))) {
    if (!fenced(real, who)) {
      if (who.view === undefined) return;
      // Covered by a scope, yet what the sandbox hides (a secret store, another's worktree)
      // or binds read-only: the shell would not reach it either.
      throw new ApiError(
        'forbidden',
        `${show(given)} is hidden from this node's sandbox, or read-only in it`,
        { field: 'path' },
      );
    }
    // Named by the path as given: where a link led stays unsaid, as below.
    throw new ApiError(
      'forbidden',
      `${show(given)} is in svc's own home or cache, a secret store or /proc, which hold its tokens and keys, the programs it runs, the person's credentials and the environments of its processes: only the owner's token reaches them`,
      { field: 'path' },
    );
  }
  const lexical = lexicalOf(given);
  const followed = lexical !== lexicalOf(real);
  const field = (followed ? wantedScope(access, lexical) : wanted) ?? `svc:files:${access}:user`;
  const why = followed
    ? `${show(given)} leads through a symbolic link outside the directories your files scopes cover`
    : `no files scope of this token covers ${show(given)}`;
  throw new ApiError('scope_missing', `${why} (needs '${field}' or wider)`, {
    field,
    received: who.received ?? who.scopes,
  });
}

/**
 * Whether `real` is in the daemon's home (outside its worktrees), in `/proc`, where the daemon's
 * and its brokers' environments and memory are, or in what `who.hidden` fences: no files scope
 * reaches any of them.
 */
export function fenced(real: string, who: Pick<FilesAccess, 'home' | 'hidden'>): boolean {
  if (isWithin('/proc', real)) return true;
  const { home, hidden } = who;
  if (home !== undefined && isWithin(home, real) && !isWithin(joinReal(home, 'worktrees'), real)) {
    return true;
  }
  return hidden?.some((p) => isWithin(p, real)) === true;
}

/** The path as written, normalized as a scope's directory is: no `.`, `..`, `//`, trailing `/`. */
export function lexicalOf(path: string): string {
  return posix.normalize(path).replace(/(.)\/+$/, '$1');
}

/**
 * `svc:files:<access>:user:<dir>` for the longest prefix of `path` a scope can name: a scope's
 * directory holds no whitespace, comma or control character and has a bounded length, so any
 * scope covering `path` covers that prefix too. `null` when not even `/` fits (never).
 */
export function wantedScope(access: Access, path: string): Scope | null {
  let dir = path;
  for (;;) {
    const scope = `svc:files:${access}:user:${dir}`;
    if (tryParseScope(scope).ok) return scope;
    if (dir === '/') return null;
    dir = posix.dirname(dir);
  }
}

export function joinReal(base: string, ...segments: string[]): string {
  if (segments.length === 0) return base;
  return `${base === '/' ? '' : base}/${segments.join('/')}`;
}
