/**
 * Notes of the writes in progress (`writeFileAtomic`): a symlink `<pid>.<random>` in
 * `SVC_HOME/run/writes` naming a write's temp file while that exists. A writer killed outright (the
 * daemon by `kill -9`, a broker at its node's cancel) cannot remove its temp file, which sits in
 * the person's own folder; the daemon removes what dead writers left, at its start and after
 * each broker exits (`sweepWrites`).
 */

import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import { mkdir, symlink, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** The name of every temp file a write makes (`.svc-write-<12 hex>.tmp`). */
export const TEMP_NAME = /^\.svc-write-[0-9a-f]{12}\.tmp$/;

export function writeNotesDir(home: string): string {
  return join(home, 'run', 'writes');
}

/** Notes `temp` (an absolute path) in `dir` for this process; answers the note, to `unnote`. */
export async function noteWrite(dir: string, temp: string): Promise<string> {
  const note = join(dir, `${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    await symlink(temp, note);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await symlink(temp, note);
  }
  return note;
}

/** Drops a note once its temp file is renamed or removed. */
export async function unnote(note: string): Promise<void> {
  await unlink(note).catch(() => {});
}

/**
 * Removes the temp files the notes in `dir` name, and the notes, of the writers `dead` picks by
 * pid: a broker that exited, or at the daemon's start every writer no longer alive. Only a file
 * named as a write's temp file is removed, whatever a note points at.
 * @returns how many temp files were still there
 */
export function sweepWrites(dir: string, dead: (pid: number) => boolean): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // no write was ever noted
  }
  let removed = 0;
  for (const name of names) {
    const pid = Number(name.slice(0, name.indexOf('.')));
    if (Number.isSafeInteger(pid) && pid > 0 && !dead(pid)) continue;
    const note = join(dir, name);
    try {
      const temp = readlinkSync(note);
      if (TEMP_NAME.test(basename(temp))) {
        try {
          rmSync(temp);
          removed++;
        } catch {
          // already renamed into place or removed
        }
      }
    } catch {
      // not a note; it goes too
    }
    rmSync(note, { force: true });
  }
  return removed;
}

/** Whether no process `pid` runs (signal 0 checks without sending one). */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
