/**
 * Stopping and queueing: cancel ends a node's loop in its agent host and every process it started
 * (a `sleep 600` in the foreground and one that left for a session of its own) within a second,
 * the host living on for other nodes; a node that ends on its own leaves none (its sandbox ends
 * with its loop); a host that dies unasked takes them too, its orphans found by their mark; interrupt stops them too and the node resumes on a message; the concurrency
 * limit queues nodes beyond it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marked } from '../src/supervisor/process-tree.ts';
import {
  bash,
  brokerProcesses,
  createNode,
  eventually,
  getNode,
  isFinal,
  isRunning,
  nodeEvents,
  ok,
  scripted,
  sleep,
  submit,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';

const CONCURRENCY = 2;
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: CONCURRENCY } });
});
afterAll(async () => {
  await t?.stop();
});

/** A `sleep 600` in the foreground; with `detached`, another that left for a session of its own. */
const sleeper = (detached: boolean) =>
  bash(
    `${detached ? 'setsid sleep 600 & echo $! > bg.pid; ' : ''}echo $$ > fg.pid; exec sleep 600`,
  );

/** Starts a node whose bash call sleeps; answers its id, the pids of its sleeps, and its host's. */
async function sleepingNode(detached: boolean, extra: unknown[] = []) {
  const node = await createNode(t.call, {
    task: 'sleep for a long time',
    model: scripted('sleeper', [sleeper(detached), ...extra]),
  });
  const dir = join(t.home, 'worktrees', node.id);
  const files = detached ? ['fg.pid', 'bg.pid'] : ['fg.pid'];
  await eventually(() => files.every((f) => existsSync(join(dir, f))), 15_000, 'sleeps started');
  const broker = brokerProcesses(t.home).find(
    (b) => b.nodeId === node.id && b.ppid === process.pid,
  )!;
  // The pids a command writes are its sandbox's own (a PID namespace of its own): the host's are
  // found by the mark every process of this broker's commands carries (the sleeps, the sandbox).
  const commands = () => marked(node.id, broker.pid).map((p) => p.pid);
  await eventually(() => commands().length >= files.length, 2_000, 'sleeping');
  const pids = commands();
  expect(pids.every(isRunning)).toBe(true);
  return { id: node.id, pids, host: broker.pid };
}

describe('cancel', () => {
  it('kills every process the node started within a second; its host lives on', async () => {
    const { id, pids, host } = await sleepingNode(true);
    const started = performance.now();
    const res = await t.call(`/v1/nodes/${id}/cancel`, json({ reason: 'enough' }));
    const node = await ok<{ state: string }>(res);
    expect(node.state).toBe('cancelled');
    await eventually(() => pids.every((pid) => !isRunning(pid)), 1_000, 'every process gone');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(isRunning(host)).toBe(true);
  });
});

describe('a node that ends on its own', () => {
  it('leaves nothing running: its sandbox ends with its loop, a process in a session of its own too', async () => {
    const node = await createNode(t.call, {
      task: 'leave a sleeper behind, then finish',
      model: scripted('leaver', [
        bash(
          'setsid sleep 600 > /dev/null 2>&1 & for i in $(seq 1500); do [ -e go ] && exit 0; sleep 0.02; done; exit 1',
        ),
        submit({ left: true }, 'left a sleeper'),
      ]),
    });
    let host = 0;
    await eventually(
      () => {
        host = brokerProcesses(t.home).find((b) => b.nodeId === node.id)?.pid ?? 0;
        return host !== 0;
      },
      15_000,
      'its host',
    );
    const sleepers = () => marked(node.id, host).filter((p) => /^sleep 600/.test(commandOf(p.pid)));
    await eventually(() => sleepers().length === 1, 15_000, 'the sleeper started');
    const [sleeper] = sleepers();
    writeFileSync(join(t.home, 'worktrees', node.id, 'go'), '');
    await waitForNode(t.call, node.id, (n) => n.state === 'done');
    await eventually(() => !isRunning(sleeper!.pid), 5_000, 'the sleeper gone with its sandbox');
    expect(isRunning(host)).toBe(true);
  });
});

describe('an agent host killed with SIGKILL', () => {
  it('leaves nothing running: what it started dies, even in a session of its own', async () => {
    const { id, pids: commands, host } = await sleepingNode(true);
    // Nobody asked the host to stop, so nobody walked its tree: its sleeps now belong to init.
    process.kill(host, 'SIGKILL');
    await eventually(() => commands.every((pid) => !isRunning(pid)), 2_000, 'orphans gone');
    // Its sandboxed commands die with it (--die-with-parent, their PID namespace), which may be
    // before the daemon has seen the exit: the fault is waited for, not assumed.
    const crashed = async () =>
      (await nodeEvents(t.call, id, ['node.fault'])).some(
        (e) => (e.payload.fault as { code: string }).code === 'broker_crashed',
      );
    await eventually(crashed, 5_000, 'the crash recorded');
    await ok(await t.call(`/v1/nodes/${id}/cancel`, json({ reason: 'enough' })));
  });
});

describe('an outside submit', () => {
  it('ends the node and stops its loop and every process it started, freeing its slot', async () => {
    const { id, pids } = await sleepingNode(true);
    const res = await t.call(`/v1/nodes/${id}/result`, json({ summary: 'done from outside' }));
    expect((await ok<{ state: string }>(res)).state).toBe('done');
    await eventually(() => pids.every((pid) => !isRunning(pid)), 1_000, 'every process gone');
    // The slot frees once the daemon has seen its broker's exit, which may follow the last pid.
    const active = async () =>
      (await ok<{ brokers: { active: number } }>(await t.call('/v1/status'))).brokers.active;
    await eventually(async () => (await active()) === 0, 5_000, 'the slot freed');
  });
});

describe('interrupt', () => {
  it('stops the running command; a message resumes the node without running it again', async () => {
    const { id, pids } = await sleepingNode(false, [{ text: 'resumed' }]);
    const started = performance.now();
    const node = await ok<{ state: string }>(await t.call(`/v1/nodes/${id}/interrupt`, json({})));
    expect(node.state).toBe('waiting');
    await eventually(() => pids.every((pid) => !isRunning(pid)), 1_000, 'every process gone');
    expect(performance.now() - started).toBeLessThan(1_000);

    await ok(await t.call(`/v1/nodes/${id}/messages`, json({ text: 'carry on' })));
    const parked = await waitForNode(
      t.call,
      id,
      (n) => n.state === 'waiting' && n.usage.turns === 2,
    );
    expect(parked.waiting_on).toEqual({ for: 'mail' });
    // The interrupted call was settled as such, so the relaunched broker did not run it again.
    const [call] = await toolResults(t.call, id);
    expect(call).toMatchObject({ name: 'bash', status: 'error' });
    expect(String(call!.output)).toMatch(/^interrupted/);
    const actions = (await nodeEvents(t.call, id, ['node.state'])).map((e) => e.payload.action);
    expect(actions.slice(0, 5)).toEqual(['create', 'start', 'interrupt', 'message', 'start']);
  });
});

describe('the concurrency limit', () => {
  it(`runs at most ${CONCURRENCY} brokers and queues the rest`, async () => {
    const nodes = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createNode(t.call, {
          task: `queued ${i}`,
          model: scripted('short', [bash('sleep 0.3'), submit({ i })]),
        }),
      ),
    );
    const ids = new Set(nodes.map((n) => n.id));
    let maxRunning = 0;
    let sawQueueBehindFullSlots = false;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const states = await Promise.all(
        [...ids].map(async (id) => (await getNode(t.call, id)).state),
      );
      const running = states.filter((s) => s === 'running').length;
      // By node: a broker forking a command shows as two broker processes until the exec.
      const brokers = new Set(
        brokerProcesses(t.home)
          .filter((b) => ids.has(b.nodeId))
          .map((b) => b.nodeId),
      ).size;
      maxRunning = Math.max(maxRunning, running, brokers);
      if (running === CONCURRENCY && states.includes('queued')) sawQueueBehindFullSlots = true;
      if (states.every((s) => s === 'done') || Date.now() > deadline) break;
      await sleep(25);
    }
    expect(maxRunning).toBe(CONCURRENCY);
    expect(sawQueueBehindFullSlots).toBe(true);
    for (const id of ids) expect(isFinal(await getNode(t.call, id))).toBe(true);
  });
});

/** What `pid` runs (its command line, arguments joined by spaces); '' once it is gone. */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
