/**
 * The pool of agent hosts: room for every free slot while nodes launch, in as few hosts as that
 * takes (here 2 nodes a host, 4 slots); once the daemon launched nothing for a while, a host with
 * no node exits unless it is the one kept warm; the next launch lands on that one, and the room
 * is made again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentHosts,
  brokerProcesses,
  createNode,
  eventually,
  scripted,
  submit,
  waitForNode,
} from './broker-fixtures.ts';
import { startTestDaemon, type TestDaemon } from './helpers.ts';

const SPARE_IDLE_MS = 3_000;
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({
    brokers: { concurrency: 4, spareIdleMs: SPARE_IDLE_MS, hostCapacity: 2 },
  });
});
afterAll(async () => {
  await t?.stop();
});

/** The agent host processes of this daemon. */
const hosts = (): number[] => [...agentHosts(t.home).keys()];

async function runOne(name: string): Promise<string> {
  const node = await createNode(t.call, {
    task: name,
    model: scripted(name, [submit({ ok: true }, 'done')]),
  });
  await waitForNode(t.call, node.id, (n) => n.state === 'done', 60_000);
  return node.id;
}

describe('the agent hosts', () => {
  it('keep room per free slot after a launch, one host after a lull, and refill at the next launch', async () => {
    const first = runOne('first');
    // One node on a host of 2 leaves room for 1: 3 free slots need a second host, not a third.
    await eventually(() => hosts().length === 2, 5_000, 'room for every free slot');
    await first;
    await eventually(() => hosts().length === 1, SPARE_IDLE_MS + 10_000, 'one host in a lull');
    const kept = hosts();
    expect(kept).toHaveLength(1);

    const second = createNode(t.call, {
      task: 'second',
      model: scripted('second', [{ text: 'one turn, then wait for mail' }]),
    });
    const id = (await second).id;
    // The host kept warm is the one that runs the node.
    await eventually(
      () => brokerProcesses(t.home).some((b) => b.nodeId === id && b.pid === kept[0]),
      10_000,
      'the kept host launched the node',
    );
    await eventually(() => hosts().length === 2, 10_000, 'room for every free slot again');
    await waitForNode(t.call, id, (n) => n.state === 'waiting', 60_000);
  });
});
