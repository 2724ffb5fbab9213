/**
 * The temp files of writes a killed writer left (`services/write-notes.ts`): each write notes its
 * temp file while it exists, and the daemon removes what dead writers left, at its start and
 * after a broker exits; a write that ends, well or not, leaves neither note nor temp file.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../src/index.ts';
import { noteWrite, sweepWrites, writeNotesDir } from '../src/nodes/workspace/write-notes.ts';
import { json, scratchDirs, socketFetch } from './helpers.ts';

const scratch = scratchDirs('svc-notes-');
/** A pid no process holds: one that ran and exited. */
const deadPid = spawnSync(process.execPath, ['-e', '']).pid;

/** A temp file as a write makes it, in `dir`, and a note of it by the writer `pid`. */
function leftBy(pid: number, dir: string, notes: string, hex = 'abcdef012345'): string {
  const temp = join(dir, `.svc-write-${hex}.tmp`);
  writeFileSync(temp, 'half a file');
  mkdirSync(notes, { recursive: true });
  symlinkSync(temp, join(notes, `${pid}.${hex}`));
  return temp;
}

describe('sweepWrites', () => {
  it('removes the temp files of the writers it picks, and their notes, and no others', () => {
    const dir = scratch();
    const notes = join(scratch(), 'writes');
    const dead = leftBy(deadPid, dir, notes, '000000000001');
    const alive = leftBy(process.pid, dir, notes, '000000000002');
    // A note that points at anything but a write's temp file removes nothing but itself.
    const precious = join(dir, 'precious.txt');
    writeFileSync(precious, 'keep');
    symlinkSync(precious, join(notes, `${deadPid}.000000000003`));
    expect(sweepWrites(notes, (pid) => pid === deadPid)).toBe(1);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(alive)).toBe(true);
    expect(existsSync(precious)).toBe(true);
    expect(readdirSync(notes)).toEqual([`${process.pid}.000000000002`]);
    expect(sweepWrites(notes, (pid) => pid === process.pid)).toBe(1);
    expect(readdirSync(notes)).toEqual([]);
    expect(sweepWrites(join(notes, 'never-made'), () => true)).toBe(0);
  });

  it('noteWrite makes the notes folder on first use', async () => {
    const notes = join(scratch(), 'run', 'writes');
    const note = await noteWrite(notes, '/tmp/.svc-write-000000000000.tmp');
    expect(note?.startsWith(join(notes, `${process.pid}.`))).toBe(true);
    // A note that cannot be made is no failure of the write: only its cleanup is lost.
    const blocked = join(scratch(), 'file');
    writeFileSync(blocked, '');
    expect(await noteWrite(join(blocked, 'writes'), '/tmp/x')).toBeNull();
  });
});

describe('the daemon', () => {
  let close: (() => Promise<void>) | undefined;
  afterAll(() => close?.());

  it('removes at its start what the writes of earlier writers left, whatever their pids; a write notes, then drops its note', async () => {
    const home = scratch();
    const dir = realpathSync(scratch());
    const temp = leftBy(deadPid, dir, writeNotesDir(home));
    // Its own pid, as a restart in a container often has: still an earlier life's.
    const own = leftBy(process.pid, dir, writeNotesDir(home), '0000000000ff');
    const daemon = await startDaemon({ home, logLevel: 'warn' });
    close = () => daemon.close();
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(own)).toBe(false);
    expect(readdirSync(writeNotesDir(home))).toEqual([]);
    // The folder goes, so that only a write that notes makes it again.
    rmSync(writeNotesDir(home), { recursive: true });

    const call = socketFetch(
      daemon.socketPath,
      readFileSync(join(home, 'owner.token'), 'utf8').trim(),
    );
    const write = await call(
      '/v1/files/write',
      json({ path: join(dir, 'done.txt'), content: 'whole' }),
    );
    expect(write.status).toBe(200);
    expect(existsSync(writeNotesDir(home))).toBe(true); // noted, which made the folder
    expect(readdirSync(writeNotesDir(home))).toEqual([]); // and dropped once renamed
    expect(readdirSync(dir).filter((name) => name.startsWith('.svc-write-'))).toEqual([]);
  });
});
