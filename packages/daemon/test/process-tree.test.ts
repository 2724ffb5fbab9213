/**
 * The mark a broker's commands carry (`SVC_BROKER`): `marked` finds exactly the processes whose
 * environment holds that whole entry, whoever their parent is now.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BROKER_TAG_ENV } from '../src/supervisor/broker-tag.ts';
import { marked, markedInTurns, pidWindow } from '../src/supervisor/process-tree.ts';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** A `sleep` with `extra` in its environment, started in a session of its own. */
function sleeper(extra: Record<string, string>): number {
  const child = spawn('sleep', ['30'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra },
    detached: true,
    stdio: 'ignore',
  });
  children.push(child);
  return child.pid!;
}

describe('marked', () => {
  it("finds the broker's processes by the whole entry, not a longer pid, name or value", async () => {
    const ours = sleeper({ [BROKER_TAG_ENV]: 'node_a/123' });
    const first = sleeper({ [BROKER_TAG_ENV]: 'node_a/123', OTHER: 'x' });
    sleeper({ [BROKER_TAG_ENV]: 'node_a/1234' }); // another broker's pid
    sleeper({ [BROKER_TAG_ENV]: 'node_b/123' }); // another node's
    sleeper({ [`X${BROKER_TAG_ENV}`]: 'node_a/123' }); // another name ending alike
    sleeper({ NOTE: `${BROKER_TAG_ENV}=node_a/123` }); // inside another entry's value
    // The same text inside a value first, then the entry itself: found by the entry.
    const later = sleeper({ NOTE: `${BROKER_TAG_ENV}=node_a/123`, [BROKER_TAG_ENV]: 'node_a/123' });
    const found = marked('node_a', 123).map((p) => p.pid);
    expect(found.sort()).toEqual([ours, first, later].sort());
    for (const p of marked('node_a', 123)) expect(p.pgid).toBe(p.pid); // each in its own group
    // In slices, between turns of the event loop: the same processes.
    const offLoop = (await markedInTurns('node_a', 123)).map((p) => p.pid);
    expect(offLoop.sort()).toEqual([ours, first, later].sort());
  });

  it('finds nothing for a mark no process carries', async () => {
    expect(marked('node_none', 1)).toEqual([]);
    expect(await markedInTurns('node_none', 1)).toEqual([]);
  });

  it('reads only the processes forked since a launch, unless the pid ring may have come round', async () => {
    const before = sleeper({ [BROKER_TAG_ENV]: 'node_w/77' });
    const window = pidWindow();
    expect(window).not.toBeNull();
    const after = sleeper({ [BROKER_TAG_ENV]: 'node_w/77' });
    const pids = (found: { pid: number }[]) => found.map((p) => p.pid).sort();
    // Forked before the launch, it cannot be the node's: not read, so not found.
    expect(pids(marked('node_w', 77, window))).toEqual([after]);
    expect(pids(await markedInTurns('node_w', 77, window))).toEqual([after]);
    // Without a window, every process is read.
    expect(pids(marked('node_w', 77, null))).toEqual([before, after].sort());
    // The ring wrapped since (the last pid then is past the last pid now): the arc goes round.
    const wrapped = { ...window!, lastPid: pidWindow()!.lastPid + 1 };
    expect(pids(marked('node_w', 77, wrapped))).toEqual([before, after].sort());
    // So many forks since that the ring may have come round past the launch: all are read.
    const lapped = { ...window!, forks: window!.forks - 1_000_000_000 };
    expect(pids(marked('node_w', 77, lapped))).toEqual([before, after].sort());
  });
});
