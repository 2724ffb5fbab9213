/**
 * Control groups left by daemons of other homes: a daemon killed before its close leaves its
 * parent group under `svc-sandbox/`, and a test's home, once deleted, never starts again to sweep
 * it. The next daemon to start removes what is empty and whose maker is gone, and a live daemon
 * whose empty parent went meanwhile makes it again at its next command. Real cgroupfs; where the
 * host gives no writable group, there is nothing to test.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeGroups, removeBase, sweepGroups, sweepOthers } from '../../src/sandbox/cgroup.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-sweep-'));
const host = probeSandbox(home);
const base = host.cgroup;
const made: string[] = [];
afterAll(async () => {
  for (const dir of made.reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // Swept already.
    }
  }
  if (base !== null) await removeBase(base);
  rmSync(home, { recursive: true, force: true });
});

/** A parent group of another home, with command groups named as their makers name them. */
function foreignKey(groups: string[]): string {
  const key = join(dirname(base!.pids), randomBytes(8).toString('hex'));
  mkdirSync(key);
  made.push(key);
  for (const group of groups) {
    mkdirSync(join(key, group));
    made.push(join(key, group));
  }
  return key;
}

describe.skipIf(base === null)('control groups of other homes', () => {
  it('removes the empty ones whose maker is gone, and leaves a live maker its group', async () => {
    const dead = spawnSync('true').pid;
    const empty = foreignKey([]);
    const abandoned = foreignKey([`${dead}-session-1`, `${dead}-7`, `probe-${dead}`]);
    const live = foreignKey([`${process.pid}-session-1`]);

    await sweepOthers(base!);

    expect(existsSync(empty)).toBe(false);
    expect(existsSync(abandoned)).toBe(false);
    // Its maker may be about to join it: the group stays, and so its parent.
    expect(existsSync(join(live, `${process.pid}-session-1`))).toBe(true);
  });

  it("makes a command's groups again under a parent removed meanwhile", async () => {
    await sweepGroups(base!);
    for (const dir of new Set([base!.pids, base!.memory].filter((d) => d !== null))) {
      rmdirSync(dir);
    }

    const groups = makeGroups(base!, `${process.pid}-again`, { pids: 33, memoryBytes: 1 << 28 });
    try {
      const pidsDir = dirname(groups.join[0]!);
      expect(pidsDir).toBe(join(base!.pids, `${process.pid}-again`));
      expect(readFileSync(join(pidsDir, 'pids.max'), 'utf8').trim()).toBe('33');
    } finally {
      await groups.remove();
    }
  });
});
