import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homePaths } from '@svc/protocol/home';
import { DaemonError } from '../errors.ts';

export interface LockInfo {
  pid: number;
  started_at: string;
}

/**
 * The daemon holding `home`, or `null` when none does. A lock file whose pid is gone (the daemon
 * was killed) counts as no lock.
 */
export function readLock(home: string): LockInfo | null {
  const info = readLockFile(homePaths(home).lock);
  return info !== null && isAlive(info.pid) ? info : null;
}

/**
 * Takes the home's lock for this process: one daemon per home, because the daemon is the sole
 * writer of its database. The complete file is written under a private name (`wx`) and then
 * hard-linked into place: link(2) fails with EEXIST atomically, so of two daemons starting at once
 * exactly one wins and no reader ever sees a half-written lock. A stale lock is removed and the
 * link retried once.
 */
export function acquireLock(home: string): LockInfo {
  const path = homePaths(home).lock;
  const info: LockInfo = { pid: process.pid, started_at: new Date().toISOString() };
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${JSON.stringify(info)}\n`, { flag: 'w', mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (tryLink(draft, path)) return info;
      const holder = readLockFile(path);
      if (holder !== null && isAlive(holder.pid)) {
        throw new DaemonError(
          'daemon_running',
          `another svc daemon (pid ${holder.pid}) is running on ${home}`,
        );
      }
      rmSync(path, { force: true });
    }
  } finally {
    rmSync(draft, { force: true });
  }
  throw new DaemonError('daemon_running', `another svc daemon is starting on ${home}`);
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
      return { pid: value.pid as number, started_at: String(value.started_at ?? '') };
    }
  } catch {
    // A torn or foreign file: treated as stale below.
  }
  return { pid: 0, started_at: '' };
}

function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the pid exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A process that has exited (`kill -9`) but not yet been reaped by its parent is a zombie: kill(2)
 * still finds its pid, yet it holds nothing, so its lock is stale. Linux tells by the state field
 * of `/proc/<pid>/stat` (proc(5)); elsewhere the pid is taken at its word.
 */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // `pid (comm) state …`: comm may hold spaces and parentheses, so the state follows the last ')'.
  return stat[stat.lastIndexOf(')') + 2] === 'Z';
}
