/**
 * Many nodes' loops in one agent host, on a real daemon: each node keeps what is its own (its
 * commands, viewer socket, log file, token) apart from the others'. A cancel stops one node's
 * loop and kills its command within a second while the other goes on to its outcome in the same
 * host; a host killed with SIGKILL relaunches every node it held from its last recorded turn,
 * each charged one relaunch and each on a host of its own.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_TMP_ENV } from '../src/sandbox/private-tmp.ts';
import { marked } from '../src/supervisor/process-tree.ts';
import {
  bash,
  brokerProcesses,
  createNode,
  eventually,
  expectOnceEach,
  isRunning,
  nodeEvents,
  scripted,
  sleep,
  submit,
  turnIndexes,
  waitForNode,
} from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 4 } });
});
afterAll(async () => {
  await t?.stop();
});

/** A `bash` call that waits (bounded, 30 s) for `name` in the node's worktree: the test opens it. */
const gated = (name: string) =>
  bash(`for i in $(seq 1500); do [ -e ${name} ] && exit 0; sleep 0.02; done; exit 1`);
const open = (nodeId: string, name: string) =>
  writeFileSync(join(t.home, 'worktrees', nodeId, name), '');

/** The node's host pid once its command runs, with the pids of that command's processes. */
async function running(nodeId: string): Promise<{ host: number; commands: () => number[] }> {
  let host: number | undefined;
  await eventually(
    () => {
      host = brokerProcesses(t.home).find((b) => b.nodeId === nodeId)?.pid;
      return host !== undefined && marked(nodeId, host).length > 0;
    },
    15_000,
    `a command of ${nodeId} running`,
  );
  return { host: host!, commands: () => marked(nodeId, host!).map((p) => p.pid) };
}

/** The private directory the daemon gave the host `pid` (`SVC_PRIVATE_TMP` in its environment). */
function hostTmp(pid: number): string {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((e) => e.startsWith(`${PRIVATE_TMP_ENV}=`));
  expect(entry).toBeDefined();
  return entry!.slice(PRIVATE_TMP_ENV.length + 1);
}

/** Every line a viewer of the node reads, and when its socket closes. */
async function viewer(nodeId: string) {
  const attach = () => t.call(`/v1/nodes/${nodeId}/attach`, { method: 'POST' });
  let answer = await attach();
  for (let i = 0; answer.status === 409 && i < 1_500; i++) {
    await answer.body?.cancel();
    await sleep(10);
    answer = await attach();
  }
  expect(answer.status).toBe(200);
  const { socket_path } = (await answer.json()) as { socket_path: string };
  const socket = connect(socket_path);
  const lines: string[] = [];
  let rest = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  const ended = new Promise<void>((done) => socket.once('close', () => done()));
  return { lines, ended };
}

function logLines(nodeId: string): Record<string, unknown>[] {
  const file = join(t.home, 'logs', 'brokers', `${nodeId}.log`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Whether the node's log holds its loop's end yet (a line being appended is not read). */
function loopEnded(nodeId: string): boolean {
  try {
    return logLines(nodeId).some((l) => l.msg === 'loop ended');
  } catch {
    return false;
  }
}

describe('two nodes in one agent host', () => {
  it('one is cancelled, its command killed; the other goes on to its outcome', async () => {
    const a = await createNode(t.call, {
      task: 'alpha: sleep until cancelled',
      model: scripted('alpha', [bash('exec sleep 600')]),
    });
    const b = await createNode(t.call, {
      task: 'beta: wait for the gate, then submit',
      model: scripted('beta', [gated('go'), submit({ beta: true }, 'beta done')]),
    });
    const [ra, rb] = await Promise.all([running(a.id), running(b.id)]);
    expect(ra.host).toBe(rb.host);
    const [va, vb] = await Promise.all([viewer(a.id), viewer(b.id)]);
    const [sleepA, gateB] = [ra.commands(), rb.commands()];

    const started = performance.now();
    const cancelled = await t.call(`/v1/nodes/${a.id}/cancel`, json({ reason: 'enough' }));
    expect(cancelled.status).toBe(200);
    await eventually(() => sleepA.every((pid) => !isRunning(pid)), 1_000, "alpha's sleep gone");
    expect(performance.now() - started).toBeLessThan(1_000);
    // The other node's command, and the host, run on.
    expect(gateB.some(isRunning)).toBe(true);
    expect(isRunning(ra.host)).toBe(true);

    open(b.id, 'go');
    const done = await waitForNode(t.call, b.id, (n) => n.state === 'done');
    expect(done.outcome?.summary).toBe('beta done');
    await Promise.all([va.ended, vb.ended]);

    // Each viewer got its own node's turns, and nothing of the other's.
    expect(va.lines.some((l) => l.includes('alpha: sleep'))).toBe(true);
    expect(va.lines.some((l) => l.includes('beta'))).toBe(false);
    expect(vb.lines.some((l) => l.includes('beta: wait'))).toBe(true);
    expect(vb.lines.some((l) => l.includes('alpha'))).toBe(false);
    expect(JSON.parse(vb.lines.at(-1)!)).toMatchObject({ type: 'loop.ended', kind: 'submitted' });

    // Each node's log holds its own lines only. Its last, 'loop ended', comes from the host and
    // is appended by the daemon after the loop's end the test saw: waited for, not assumed.
    for (const id of [a.id, b.id]) {
      await eventually(() => loopEnded(id), 10_000, `${id}'s 'loop ended' in its log`);
      for (const line of logLines(id)) expect(line.node_id).toBe(id);
    }
    // No node token anywhere in the logs: not its own, nor another node's.
    const logs = join(t.home, 'logs', 'brokers');
    for (const name of readdirSync(logs)) {
      expect(readFileSync(join(logs, name), 'utf8')).not.toMatch(/svc_node_/);
    }
  });
});

describe('an agent host killed with SIGKILL', () => {
  it('relaunches every node it held from its last recorded turn, each charged one relaunch, each alone', async () => {
    const nodes = await Promise.all(
      ['gamma', 'delta'].map((name) =>
        createNode(t.call, {
          task: `${name}: survive the host`,
          model: scripted(name, [gated('go'), submit({ name }, `${name} done`)]),
        }),
      ),
    );
    const held = await Promise.all(nodes.map((n) => running(n.id)));
    const host = held[0]!.host;
    expect(held.every((h) => h.host === host)).toBe(true);
    // What it made for its sandboxes (its launcher's socket, its seccomp filter) is in a
    // directory of its own, which the daemon removes once it is gone: a killed host runs no
    // exit handler of its own.
    const tmp = hostTmp(host);
    expect(readdirSync(tmp).length).toBeGreaterThan(0);
    process.kill(host, 'SIGKILL');
    await eventually(() => !isRunning(host), 5_000, 'the host gone');
    await eventually(() => !existsSync(tmp), 5_000, "the host's private directory removed");
    // Each is relaunched on a host of its own, where its pending call runs again (it was
    // running when the host died) and waits for its gate: neither can bring the other down again.
    const again = await Promise.all(nodes.map((n) => running(n.id)));
    expect(again.map((r) => r.host)).not.toContain(host);
    expect(again[0]!.host).not.toBe(again[1]!.host);
    for (const n of nodes) open(n.id, 'go');
    for (const n of nodes) {
      const done = await waitForNode(t.call, n.id, (x) => x.state === 'done');
      expect(done.outcome?.summary).toMatch(/done$/);
      expectOnceEach(await turnIndexes(t.call, n.id), 2);
      const faults = await nodeEvents(t.call, n.id, ['node.fault']);
      expect(faults.map((e) => (e.payload.fault as { code: string }).code)).toEqual([
        'broker_crashed',
      ]);
      const actions = (await nodeEvents(t.call, n.id, ['node.state'])).map((e) => e.payload.action);
      expect(actions).toEqual(['create', 'start', 'relaunch', 'start', 'submit']);
    }
  });
});
