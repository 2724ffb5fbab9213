/**
 * An agent host's memory, on a real daemon with real hosts: each host runs with its young
 * generation capped (`HOST_SEMI_SPACE_MB`), and a host left with no node gives back its heap once
 * its quiet spell is over (`src/broker/host-idle-release.ts`), which it says in its own log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_RELEASE_QUIET_MS } from '../src/broker/host-idle-release.ts';
import { HOST_SEMI_SPACE_MB } from '../src/supervisor/agent-host.ts';
import { createNode, eventually, scripted, submit, waitForNode } from './broker-fixtures.ts';
import { startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

/** The lines of a host's own log (`host-<pid>.log`), parsed; none before it has written one. */
function hostLog(pid: number): Record<string, unknown>[] {
  const file = join(t.home, 'logs', 'brokers', `host-${pid}.log`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const released = (pid: number) => hostLog(pid).filter((l) => l.msg === 'no node: heap released');
const trimmed = (pid: number) => hostLog(pid).filter((l) => l.msg === 'no node: malloc trimmed');

/** The host pid each of a node's loops ran in (its `brokers` rows). */
function hostsOf(nodeId: string): number[] {
  const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT pid FROM brokers WHERE node_id = ?').all(nodeId);
    return rows.map((r) => Number(r.pid));
  } finally {
    db.close();
  }
}

describe("an agent host's heap", () => {
  it('is capped in its young generation, and given back once the host has no node', async () => {
    const node = await createNode(t.call, {
      task: 'one turn',
      model: scripted('m', [submit({ ok: true }, 'done')]),
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'done');
    const [host] = hostsOf(node.id);
    expect(host).toBeDefined();
    const argv = readFileSync(`/proc/${host}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain(`--max-semi-space-size=${HOST_SEMI_SPACE_MB}`);

    // The host lives on as the daemon's warm spare: with no node, its quiet spell runs out.
    await eventually(() => released(host!).length > 0, HOST_RELEASE_QUIET_MS + 15_000, 'release');
    expect(released(host!)[0]).toMatchObject({ ms: expect.any(Number), rss: expect.any(Number) });
    // Then the C library's free pages (`src/lifecycle/malloc-trim.ts`), its addon built in the
    // cache the node's sandbox plan names, or found there.
    await eventually(() => trimmed(host!).length > 0, 30_000, 'trim');
    expect(trimmed(host!)[0]).toMatchObject({
      released: expect.any(Boolean),
      rss: expect.any(Number),
    });
    expect(hostLog(host!).filter((l) => /could not be/.test(String(l.msg)))).toEqual([]);
  }, 70_000);
});
