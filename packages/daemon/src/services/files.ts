/**
 * Host files by absolute path (`files.read`, `files.write`, `files.list`; docs/api-v1.md
 * "Files"). Every path is resolved to its realpath first and that is what the caller's files
 * scopes must cover, so a symbolic link never leads a caller out of its directories. Refusals are
 * `ApiError`s naming only the path the caller gave: the route answers them, the node tools hand
 * them to the model.
 */
import { constants, existsSync, realpathSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rename, unlink } from 'node:fs/promises';
import { posix } from 'node:path';
import {
  FILES_LIST_DEFAULT_LIMIT,
  FILES_READ_DEFAULT_BYTES,
  FILES_WRITE_MAX_BYTES,
  isWithin,
  listCovers,
  type Scope,
  tryParseScope,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { noteWrite, tempName, unnote } from '../nodes/workspace/write-notes.ts';
import { type Layer, viewAllows } from '../sandbox/view.ts';
import { decodeContent, textOrBase64 } from './file-content.ts';

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

export interface FileReadInput {
  path: string;
  offset?: number | undefined;
  max_bytes?: number | undefined;
}

export interface FileWriteInput {
  path: string;
  content: string;
  encoding?: 'utf8' | 'base64' | undefined;
  create_parents?: boolean | undefined;
}

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

type Access = 'read' | 'rw';

/** A slice of a regular file: UTF-8 text when it is, else base64 (`./file-content.ts`). */
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

/** The directory at `real`, opened without following a link swapped in since it was checked. */
function openDirectory(real: string, given: string) {
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  return fsCall(open(real, flags), given);
}

/** Whether this system shows open descriptors as paths (Linux's `/proc`); read once. */
const PROC_FDS = existsSync('/proc/self/fd');

/**
 * What an open descriptor names, read back through `/proc/self/fd` (Linux): the check of a path
 * and its open are two steps, and a directory on the way may have been swapped for a link in
 * between; `O_NOFOLLOW` guards only the last component. `null` only where there is no `/proc`.
 * `readlink`, not `realpath`: the kernel's name of what is open, read without walking the path
 * again, where a component swapped for a link since would lead elsewhere; and one that cannot be
 * read (renamed away meanwhile, removed) is a refusal, never taken for a missing `/proc`, which
 * would send the caller's work down the path it gave.
 */
async function openedPath(fd: number, given: string): Promise<string | null> {
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
function fdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** `permit` on what `fd` turned out to open. */
async function permitOpened(fd: number, given: string, access: Access, who: FilesAccess) {
  const at = await openedPath(fd, given);
  if (at !== null) permit(given, at, access, who);
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

/** The node tools take what a model writes, not what the route's schema already checked. */
/** The home as the checks see it: its realpath (a home reached through a link is the same). */
export function realHome(home: string): string {
  try {
    return realpathSync(home);
  } catch {
    return posix.resolve(home);
  }
}

function checkedPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw invalidPath(`path must be absolute; received ${show(String(path))}`);
  }
  if (path.includes('\0')) throw invalidPath('path must not contain a NUL byte');
  return path;
}

interface Resolved {
  /** The realpath of the longest existing prefix, then the missing segments as written. */
  path: string;
  existing: string;
  missing: string[];
}

/** `path` resolved, checked against `who` for `access`; `missing` when it does not exist. */
async function resolvePermitted(path: string, access: Access, who: FilesAccess) {
  const real = await resolveFor(path, path, access, who);
  permit(path, real.path, access, who);
  return { path: real.path, missing: real.missing.length > 0 };
}

/**
 * `resolve`, but a path the caller may not reach is refused as such even where resolving it
 * failed (a directory it cannot search): its scopes are checked on the path as written then.
 */
async function resolveFor(path: string, given: string, access: Access, who: FilesAccess) {
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
async function resolve(path: string, given: string, links = 0): Promise<Resolved> {
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
const MAX_LINKS = 40;

/** Where `head` points when it is a symbolic link (absolute, as written); else `null`. */
async function danglingTarget(head: string): Promise<string | null> {
  try {
    if (!(await lstat(head)).isSymbolicLink()) return null;
    return posix.resolve(await realpath(posix.dirname(head)), await readlink(head));
  } catch {
    return null;
  }
}

/**
 * Refuses `real` unless a root holds it or a scope covers `svc:files:<access>:user:<real>`. A
 * refusal names that scope; when a link was followed it names the scope of the path as given,
 * so where a link points (it may be the daemon's home) never reaches the answer.
 */
function permit(given: string, real: string, access: Access, who: FilesAccess): void {
  const wanted = wantedScope(access, real);
  if (who.view !== undefined) {
    // The home and /proc stay fenced whatever the view says, but for the node's own worktree.
    const own = who.roots?.some((root) => isWithin(root, real)) === true;
    if (viewAllows(who.view, real, access) && (own || !fenced(real, who.home))) return;
  } else {
    // Every scope reaches every path: the owner's everywhere, a viewer session's (fenced,
    // `home` set) but in the home and /proc.
    if (who.scopes === null && (who.home === undefined || !fenced(real, who.home))) return;
    if (who.roots?.some((root) => isWithin(root, real)) === true) return;
  }
  const covered = wanted !== null && (who.scopes === null || listCovers(who.scopes, wanted));
  if (covered || (who.view !== undefined && fenced(real, who.home))) {
    if (!fenced(real, who.home)) {
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
      `${show(given)} is in svc's own home or /proc, which hold its tokens, keys and the environments of its processes: only the owner's token reaches them`,
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
 * Whether `real` is in the daemon's home (outside its worktrees) or in `/proc`, where the
 * daemon's and its brokers' environments and memory are: no files scope reaches either.
 */
function fenced(real: string, home: string | undefined): boolean {
  if (isWithin('/proc', real)) return true;
  return home !== undefined && isWithin(home, real) && !isWithin(joinReal(home, 'worktrees'), real);
}

/** The path as written, normalized as a scope's directory is: no `.`, `..`, `//`, trailing `/`. */
function lexicalOf(path: string): string {
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

function joinReal(base: string, ...segments: string[]): string {
  if (segments.length === 0) return base;
  return `${base === '/' ? '' : base}/${segments.join('/')}`;
}

/** A file-system call whose failure is answered as the refusal it is, naming the path given. */
async function fsCall<T>(promise: Promise<T>, given: string): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw fsError(error, given);
  }
}

/**
 * What a failed file-system call means to the caller. A condition of the host (a full disk, an
 * I/O error) stays what it is: an error that is not the caller's.
 */
export function fsError(error: unknown, given: string): unknown {
  switch (errnoOf(error)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return missing(given);
    case 'EACCES':
    case 'EPERM':
      return new ApiError('forbidden', `permission denied: ${show(given)}`, { field: 'path' });
    case 'EROFS':
      return new ApiError('forbidden', `${show(given)} is on a read-only file system`, {
        field: 'path',
      });
    case 'EISDIR':
      return invalidPath(`${show(given)} is a directory`);
    case 'ELOOP':
      return invalidPath(`${show(given)} is a symbolic link, or leads through too many`);
    case 'ENAMETOOLONG':
      return invalidPath(`${show(given)} is too long a path`);
    case 'ENXIO':
    case 'ENODEV':
    // A procfs or sysfs file that refuses a plain read (`/proc/kmsg`, `/proc/self/pagemap`).
    // EIO is left a failure of the host: on a regular file it is the disk's.
    case 'EAGAIN':
    case 'EINVAL':
      return invalidPath(`${show(given)} is not a regular file`);
    case 'EBUSY':
      return new ApiError('conflict', `${show(given)} is in use (a mount point?)`, {
        field: 'path',
      });
    default:
      return error;
  }
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function missing(given: string): ApiError {
  return new ApiError('not_found', `${show(given)} does not exist`, { field: 'path' });
}

function invalidPath(message: string): ApiError {
  return new ApiError('validation_failed', message, { field: 'path' });
}

function show(path: string): string {
  return JSON.stringify(path.length > 300 ? `${path.slice(0, 300)}…` : path);
}
