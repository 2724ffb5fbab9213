/**
 * An agent host that does not confirm a stop is killed whole once the grace and margin are over
 * (a cancel never waits on it), and the other node it held ends as after a crash: a fault, and a
 * relaunch charged to that node.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, eventually, isRunning, nodeEvents, ok, scripted } from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';

const DEAF_HOST = fileURLToPath(new URL('./fixtures/deaf-host.ts', import.meta.url));
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2, entry: DEAF_HOST } });
});
afterAll(async () => {
  await t?.stop();
});

/** The `brokers` rows of a node: its host's pid and how each loop ended. */
function rows(nodeId: string): { pid: number; exit: string | null }[] {
  const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
  try {
    return db
      .prepare('SELECT pid, exit FROM brokers WHERE node_id = ? ORDER BY started_at')
      .all(nodeId) as { pid: number; exit: string | null }[];
  } finally {
    db.close();
  }
}

describe('a host that does not confirm a stop', () => {
  it('is killed whole; its other node relaunches as after a crash', async () => {
    const [a, b] = await Promise.all(
      ['a', 'b'].map((name) =>
        createNode(t.call, { task: name, model: scripted(name, [{ text: 'never run' }]) }),
      ),
    );
    const launched = (id: string) => existsSync(join(t.home, 'worktrees', id, 'launch.json'));
    await eventually(() => launched(a!.id) && launched(b!.id), 15_000, 'both launched');
    const host = rows(a!.id)[0]!.pid;
    expect(rows(b!.id)[0]!.pid).toBe(host);

    await ok(await t.call(`/v1/nodes/${a!.id}/cancel`, json({ reason: 'enough' })));
    await eventually(() => !isRunning(host), 5_000, 'the host killed');
    await eventually(() => rows(a!.id)[0]!.exit !== null, 5_000, "a's loop recorded ended");
    expect(rows(a!.id)[0]!.exit).toBe('signal SIGKILL');
    // The other node's loop died with its host: a crash of that node, which relaunches it.
    const crashed = async () =>
      (await nodeEvents(t.call, b!.id, ['node.fault'])).some(
        (e) => (e.payload.fault as { code: string }).code === 'broker_crashed',
      );
    await eventually(crashed, 5_000, "b's crash recorded");
    await eventually(() => rows(b!.id).length === 2, 15_000, 'b relaunched');
    expect(rows(b!.id)[0]!.exit).toBe('signal SIGKILL');
    expect(rows(b!.id)[1]!.pid).not.toBe(host);
    const faults = await nodeEvents(t.call, a!.id, ['node.fault']);
    expect(faults).toEqual([]);
    await ok(await t.call(`/v1/nodes/${b!.id}/cancel`, json({})));
  });
});
