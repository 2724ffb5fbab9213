/**
 * Crashes: a broker killed with SIGKILL in the middle of a model turn is relaunched from the
 * last recorded turn; a daemon killed with SIGKILL while a node runs relaunches it at its next
 * start. Either way the node finishes with every turn recorded exactly once.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLock, spawnDaemon } from '../src/index.ts';
import { marked } from '../src/supervisor/process-tree.ts';
import { startFakeAnthropic } from './broker/fixtures/fake-anthropic.ts';
import type { FakeProvider } from './broker/fixtures/fake-provider.ts';
import {
  bash,
  brokerProcesses,
  createNode,
  eventually,
  expectOnceEach,
  isFinal,
  isRunning,
  nodeEvents,
  ok,
  scripted,
  submit,
  toolResults,
  turnIndexes,
  waitForNode,
} from './broker-fixtures.ts';
import { json, socketFetch, startTestDaemon, tempHome } from './helpers.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a broker killed mid-turn', () => {
  it('is recorded as a fault and relaunched; the node finishes, no turn doubled', async () => {
    const t = await startTestDaemon();
    cleanups.push(() => t.stop());
    const fake: FakeProvider = await startFakeAnthropic();
    cleanups.push(() => fake.close());
    // The first reply streams some text and then hangs: the broker is mid-turn when it dies.
    fake.enqueue(
      { text: 'Thinking about it', hang: true },
      { text: 'Again.', tool_calls: [{ name: 'bash', input: { command: 'echo after-crash' } }] },
      { tool_calls: [{ name: 'submit', input: { summary: 'survived' } }] },
    );
    await ok(
      await t.call(
        '/v1/model-auth/anthropic',
        json({ api_key: 'test-key', base_url: fake.baseUrl }),
      ),
    );
    const node = await createNode(t.call, {
      task: 'survive a crash',
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    });

    await eventually(() => fake.requests.length === 1, 10_000, 'the first model request');
    const [broker] = brokerProcesses(t.home).filter(
      (b) => b.nodeId === node.id && b.ppid === process.pid,
    );
    expect(broker).toBeDefined();
    process.kill(broker!.pid, 'SIGKILL');

    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done.state).toBe('done');
    expect(done.outcome?.summary).toBe('survived');
    expect(isRunning(broker!.pid)).toBe(false);
    expectOnceEach(await turnIndexes(t.call, node.id), 2);
    const faults = await nodeEvents(t.call, node.id, ['node.fault']);
    expect(faults.map((e) => (e.payload.fault as { code: string }).code)).toEqual([
      'broker_crashed',
    ]);
    expect(faults[0]!.payload.fault).toMatchObject({ fatal: false });
    const actions = (await nodeEvents(t.call, node.id, ['node.state'])).map(
      (e) => e.payload.action,
    );
    expect(actions).toEqual(['create', 'start', 'relaunch', 'start', 'submit']);
    expect(fake.requests).toHaveLength(3);
  });

  it('fails the node once the relaunch budget is spent', async () => {
    const t = await startTestDaemon({ brokers: { relaunchBudget: 1 } });
    cleanups.push(() => t.stop());
    const fake = await startFakeAnthropic();
    cleanups.push(() => fake.close());
    fake.enqueue({ text: 'one', hang: true }, { text: 'two', hang: true });
    await ok(
      await t.call(
        '/v1/model-auth/anthropic',
        json({ api_key: 'test-key', base_url: fake.baseUrl }),
      ),
    );
    const node = await createNode(t.call, {
      task: 'keep crashing',
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    });
    for (const n of [1, 2]) {
      await eventually(() => fake.requests.length === n, 10_000, `model request ${n}`);
      const broker = brokerProcesses(t.home).find(
        (b) => b.nodeId === node.id && b.ppid === process.pid,
      );
      process.kill(broker!.pid, 'SIGKILL');
    }
    const failed = await waitForNode(t.call, node.id, isFinal);
    expect(failed.state).toBe('failed');
    expect(failed.outcome?.error?.code).toBe('broker_crashed');
    expect(failed.outcome?.error?.message).toMatch(
      /2 broker failures since the last recorded turn; the relaunch budget is 1/,
    );
  });
});

/**
 * A daemon spawned on a home of its own, to be killed: whatever `pids` holds at the end of the
 * file (its successors, stray sleeps) is killed, and the home removed.
 */
async function daemonToKill(sandbox: 'on' | 'off' = 'on') {
  const home = tempHome();
  const pids: number[] = [];
  cleanups.push(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    rmSync(home, { recursive: true, force: true });
  });
  const first = await spawnDaemon({ home, sandbox });
  pids.push(first.pid);
  const owner = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  return { home, pids, first, owner };
}

describe('a daemon killed mid-run', () => {
  it('relaunches the node at its next start; every turn is recorded once', async () => {
    const { home, pids, first, owner } = await daemonToKill();
    let call = socketFetch(first.socketPath, owner);
    const node = await createNode(call, {
      task: 'outlive the daemon',
      model: scripted('steady', [
        bash('sleep 1; echo "$(date +%s%N)" >> runs.txt'),
        bash('echo second'),
        submit({ finished: true }),
      ]),
    });
    await eventually(async () => (await turnIndexes(call, node.id)).length === 1, 15_000, 'turn 1');
    process.kill(first.pid, 'SIGKILL');
    // Gone and reaped: the lock check counts a zombie as alive.
    await eventually(() => readLock(home) === null, 10_000, 'the first daemon gone');

    const second = await spawnDaemon({ home });
    pids.push(second.pid);
    call = socketFetch(second.socketPath, owner);
    const done = await waitForNode(call, node.id, isFinal, 20_000);
    expect(done.state).toBe('done');
    expect(done.outcome?.result).toEqual({ finished: true });
    expectOnceEach(await turnIndexes(call, node.id), 3);
    const results = await toolResults(call, node.id, 3);
    expect(results.map((r) => `${r.name}:${r.status}`)).toEqual([
      'bash:ok',
      'bash:ok',
      'submit:ok',
    ]);
    const faults = await nodeEvents(call, node.id, ['node.fault']);
    expect(faults.map((e) => (e.payload.fault as { code: string }).code)).toEqual(['broker_lost']);
    // No broker of the first daemon outlived the restart.
    await eventually(() => brokerProcesses(home).length === 0, 5_000, 'every broker gone');
    process.kill(second.pid, 'SIGTERM');
  });

  it('a sandboxed command dies with its broker: nothing outlives it, even in a session of its own', async () => {
    const { home, pids, first, owner } = await daemonToKill();
    const node = await createNode(socketFetch(first.socketPath, owner), {
      task: 'sleep through a crash',
      model: scripted('sleeper', [bash('setsid sleep 600 & echo $! > bg.pid; exec sleep 600')]),
    });
    const pidFile = join(home, 'worktrees', node.id, 'bg.pid');
    await eventually(() => existsSync(pidFile), 15_000, 'the sleep started');
    const broker = brokerProcesses(home).find((b) => b.nodeId === node.id)!;
    // Its own PID namespace's pids are in the file: the host's carry the broker's mark.
    const sandboxed = marked(node.id, broker.pid).map((p) => p.pid);
    expect(sandboxed.length).toBeGreaterThanOrEqual(2);
    pids.push(...sandboxed);
    process.kill(first.pid, 'SIGKILL');
    process.kill(broker.pid, 'SIGKILL');
    await eventually(() => !sandboxed.some(isRunning), 5_000, 'the sandbox gone with its broker');
  });

  it("kills at its next start what a lost broker's commands left running (--sandbox off)", async () => {
    // Unconfined, a command's `setsid` child survives its broker: the daemon finds it by its mark.
    const { home, pids, first, owner } = await daemonToKill('off');
    const node = await createNode(socketFetch(first.socketPath, owner), {
      task: 'sleep through a restart',
      model: scripted('sleeper', [bash('setsid sleep 600 & echo $! > bg.pid; exec sleep 600')]),
    });
    const pidFile = join(home, 'worktrees', node.id, 'bg.pid');
    await eventually(() => existsSync(pidFile), 15_000, 'the sleep started');
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    pids.push(sleeper);
    const broker = brokerProcesses(home).find((b) => b.nodeId === node.id)!;
    // The daemon and its broker die together: the sleep, in a session of its own, is init's now.
    process.kill(first.pid, 'SIGKILL');
    process.kill(broker.pid, 'SIGKILL');
    await eventually(() => readLock(home) === null, 10_000, 'the first daemon gone');
    expect(isRunning(sleeper)).toBe(true);

    const second = await spawnDaemon({ home });
    pids.push(second.pid);
    await eventually(() => !isRunning(sleeper), 5_000, 'the orphaned sleep gone');
    const call = socketFetch(second.socketPath, owner);
    await ok(await call(`/v1/nodes/${node.id}/cancel`, json({})));
    process.kill(second.pid, 'SIGTERM');
  });
});
