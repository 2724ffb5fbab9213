import { existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homePaths } from '@svc/protocol/home';
import { DaemonError } from '../errors.ts';
import { procStat } from './proc-stat.ts';

export interface LockInfo {
  pid: number;
  started_at: string;
  /**
   * The holder's start time in clock ticks since boot (`/proc/<pid>/stat`, field 22), where
   * there is `/proc`: a pid alone may name another process by now (reused after a `kill -9` or a
   * reboot), and neither a start nor a `stop` may take that one for the daemon.
   */
  start_ticks?: string;
}

/**
 * The daemon holding `home`, or `null` when none does. A lock file whose process is gone (the
 * daemon was killed), or whose pid another process has taken since, counts as no lock.
 */
export function readLock(home: string): LockInfo | null {
  const info = readLockFile(homePaths(home).lock);
  return info !== null && holds(info) ? info : null;
}

/**
 * Takes the home's lock for this process: one daemon per home, because the daemon is the sole
 * writer of its database. The complete file is written under a private name and then hard-linked
 * into place: link(2) fails with EEXIST atomically, so of two daemons starting at once exactly one
 * wins and no reader ever sees a half-written lock. A stale lock is removed only under the
 * takeover marker (`takeOver`), then the link is retried.
 */
export function acquireLock(home: string): LockInfo {
  const path = homePaths(home).lock;
  const ticks = procStat(process.pid)?.startTicks;
  const info: LockInfo = {
    pid: process.pid,
    started_at: new Date().toISOString(),
    ...(ticks !== undefined && { start_ticks: ticks }),
  };
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${JSON.stringify(info)}\n`, { flag: 'w', mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (tryLink(draft, path)) return info;
      const holder = readLockFile(path);
      if (holder !== null && holds(holder)) {
        throw new DaemonError(
          'daemon_running',
          `another svc daemon (pid ${holder.pid}) is running on ${home}`,
        );
      }
      if (takeOver(path, draft)) return info;
    }
  } finally {
    rmSync(draft, { force: true });
  }
  throw new DaemonError('daemon_running', `another svc daemon is starting on ${home}`);
}

/** How long a takeover may hold its marker before others take it for abandoned. */
const TAKEOVER_STALE_MS = 10_000;
/** How long a start waits for another's takeover to finish. */
const TAKEOVER_WAIT_MS = 3_000;

/**
 * Replaces a stale lock with this process's, holding the takeover marker (`<lock>.takeover`,
 * taken with link(2) as the lock is) so that one starter at a time looks and removes. A remove
 * without it could take away another starter's fresh lock, read stale a moment before, and both
 * would run; moving the file aside first still leaves a moment with no lock at all. Under the
 * marker the lock is read again, removed only if still stale, and this process's linked. A marker
 * older than `TAKEOVER_STALE_MS` was left by a starter that died mid-takeover.
 * @returns whether this process now holds the lock
 */
function takeOver(path: string, draft: string): boolean {
  const marker = `${path}.takeover`;
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  while (!tryLink(draft, marker)) {
    if (markerAge(marker) > TAKEOVER_STALE_MS) rmSync(marker, { force: true });
    else if (Date.now() > deadline) return false;
    else pause(10);
  }
  try {
    // No lock at all: another starter's may be linked any moment now, outside the marker, so
    // nothing is removed; the link alone decides. (A remove here took away a lock made between
    // the read and the remove, and two daemons started: issue 27, "the suite passes every time".)
    if (!existsSync(path)) return tryLink(draft, path);
    const holder = readLockFile(path);
    if (holder !== null && holds(holder)) return false;
    // A stale file stays where it is until removed under the marker: nobody can link over it.
    rmSync(path, { force: true });
    return tryLink(draft, path);
  } finally {
    rmSync(marker, { force: true });
  }
}

function markerAge(marker: string): number {
  try {
    return Date.now() - statSync(marker).mtimeMs;
  } catch {
    return 0; // gone meanwhile: the link is simply retried
  }
}

/** A synchronous sleep: the lock is taken before the daemon has anything else to do. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Removes the lock if this process still holds it. */
export function releaseLock(home: string): void {
  const path = homePaths(home).lock;
  if (readLockFile(path)?.pid === process.pid) rmSync(path, { force: true });
}

function readLockFile(path: string): LockInfo | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    if (Number.isSafeInteger(value.pid) && (value.pid as number) > 0) {
      return {
        pid: value.pid as number,
        started_at: String(value.started_at ?? ''),
        ...(typeof value.start_ticks === 'string' && { start_ticks: value.start_ticks }),
      };
    }
  } catch {
    // A torn or foreign file: treated as stale below.
  }
  return { pid: 0, started_at: '' };
}

/**
 * Whether the lock's process still runs: its pid answers kill(2) (EPERM: another user's) and is
 * not a zombie (exited after a `kill -9`, not yet reaped: it holds nothing); and, when the lock
 * says when it started, started then. Without `/proc` the pid is taken at its word.
 */
function holds(info: LockInfo): boolean {
  if (info.pid <= 0) return false;
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(info.pid);
  if (stat === null) return true;
  return (
    stat.state !== 'Z' && (info.start_ticks === undefined || stat.startTicks === info.start_ticks)
  );
}
