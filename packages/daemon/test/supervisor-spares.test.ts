/**
 * Warm spares: one per free slot while nodes launch, one once the daemon launched nothing for a
 * while (each holds about 100 MB), one per free slot again from the next launch on.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, eventually, scripted, submit, waitForNode } from './broker-fixtures.ts';
import { startTestDaemon, type TestDaemon } from './helpers.ts';

const SPARE_IDLE_MS = 3_000;
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 4, spareIdleMs: SPARE_IDLE_MS } });
});
afterAll(async () => {
  await t?.stop();
});

/** Broker processes of this daemon not handed a node: they wait in the worktrees directory. */
function spares(): number[] {
  const waiting = realpathSync(join(t.home, 'worktrees'));
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes('broker/main.ts') && !cmdline.includes('/cache/broker-')) return [];
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
      return !zombie && readlinkSync(`/proc/${name}/cwd`) === waiting ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}

async function runOne(name: string): Promise<void> {
  const node = await createNode(t.call, {
    task: name,
    model: scripted(name, [submit({ ok: true }, 'done')]),
  });
  await waitForNode(t.call, node.id, (n) => n.state === 'done', 60_000);
}

describe('warm spares', () => {
  it('keeps one per free slot after a launch, one after a lull, and refills at the next launch', async () => {
    const first = runOne('first');
    // Started with the launch: the three free slots each get one.
    await eventually(() => spares().length >= 3, 2_000, 'a spare per free slot');
    await first;
    await eventually(() => spares().length === 1, SPARE_IDLE_MS + 10_000, 'one spare in a lull');
    const kept = spares();
    expect(kept).toHaveLength(1);

    const second = runOne('second');
    // The one kept is the one handed the node (it leaves for the node's worktree).
    await eventually(() => !spares().includes(kept[0]!), 10_000, 'the kept spare launched');
    await eventually(() => spares().length >= 3, 10_000, 'a spare per free slot again');
    await second;
  });
});
