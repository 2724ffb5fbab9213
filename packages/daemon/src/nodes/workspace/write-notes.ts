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

/** The name of every temp file a write makes (`tempName`); the sweep removes no other file. */
const TEMP_NAME = /^\.svc-write-[0-9a-f]{12}\.tmp$/;

/** A new temp file name for a write, in the folder of its target. */
export function tempName(): string {
  return `.svc-write-${randomBytes(6).toString('hex')}.tmp`;
}

export function writeNotesDir(home: string): string {
  return join(home, 'run', 'writes');
}

/**
 * Notes `temp` (an absolute path) in `dir` for this process; answers the note, to `unnote`, or
 * `null` when it could not be made (a full disk): the write goes on, only its cleanup after a
 * kill is lost.
 */
export async function noteWrite(dir: string, temp: string): Promise<string | null> {
  const note = join(dir, `${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    await symlink(temp, note);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await symlink(temp, note);
    } catch {
      return null;
    }
  }
  return note;
}

/** Drops a note once its temp file is renamed or removed. */
export async function unnote(note: string): Promise<void> {
  await unlink(note).catch(() => {});
}

/**
 * Removes the temp files the notes in `dir` name, and the notes, of the writers `dead` picks by
 * pid: a broker that exited, or at the daemon's start all of them. Only a file named as a write's
 * temp file is removed, whatever a note points at.
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
