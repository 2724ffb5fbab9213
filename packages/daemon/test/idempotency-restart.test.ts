/**
 * An `Idempotency-Key` across a `kill -9`: `nodes.createAndWait`, `nodes.parse` and `runs.parse`
 * make their node or run, then hold the answer open, and no open answer survives the daemon. The
 * client retries under the same key (its transport adds one itself); the restarted daemon must
 * wait on what the first attempt made, not make a second node that does the task again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, scripted, toolCall } from './broker-fixtures.ts';
import { DAEMON_MAIN, daemonProcesses, json, socketFetch } from './helpers.ts';

const { newHome, pids } = daemonProcesses();

type Started = { child: ChildProcess; call: ReturnType<typeof socketFetch> };

/** A daemon process on `home`, answering on its socket. */
async function start(home: string): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', DAEMON_MAIN, '--home', home, '--brokers', '1'],
    { stdio: 'ignore' },
  );
  pids.push(child.pid!);
  const sock = join(home, 'daemon.sock');
  await eventually(() => existsSync(sock) && existsSync(join(home, 'owner.token')), 20_000);
  const call = socketFetch(sock, readFileSync(join(home, 'owner.token'), 'utf8').trim());
  await eventually(async () => {
    const status = await call('/v1/status').catch(() => null);
    return status?.status === 200 && ((await status.json()) as { pid: number }).pid === child.pid;
  }, 20_000);
  return { child, call };
}

async function kill9({ child }: Started): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The nodes whose task is `task`, as the owner lists them. */
async function nodesOf(call: Started['call'], task: string): Promise<{ id: string }[]> {
  const page = (await (await call('/v1/nodes?limit=200')).json()) as {
    data: { id: string; task: string }[];
  };
  return page.data.filter((n) => n.task === task);
}

// The root yields at once and then waits for mail, so every answer is held to its timeout_s.
const model = scripted('waits', [toolCall('yield', {})]);
const held = (task: string) => ({ task, model, output_schema: { type: 'object' }, timeout_s: 3 });

describe('Idempotency-Key across a kill -9', () => {
  it('a retry of createAndWait, nodes.parse or runs.parse waits on what the first attempt made', async () => {
    const home = newHome();
    const first = await start(home);
    const requests = [
      ['/v1/nodes/create-and-wait', 'key-caw', held('caw')],
      ['/v1/nodes/parse', 'key-parse', held('parse')],
      ['/v1/runs/parse', 'key-run', held('run')],
    ] as const;
    const send = (call: Started['call'], [path, key, body]: (typeof requests)[number]) =>
      call(path, json(body, 'POST', { 'Idempotency-Key': key }));
    // Sent, and left hanging: the daemon dies before any answers.
    for (const request of requests) void send(first.call, request).catch(() => {});
    await eventually(async () => {
      const made = await Promise.all(['caw', 'parse', 'run'].map((t) => nodesOf(first.call, t)));
      return made.every((nodes) => nodes.length === 1);
    }, 10_000);
    const madeFirst = await Promise.all(['caw', 'parse', 'run'].map((t) => nodesOf(first.call, t)));
    await kill9(first);

    const again = await start(home);
    const answers = await Promise.all(requests.map((r) => send(again.call, r)));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as {
      final: boolean;
      node?: { id: string };
      run?: { node_id: string };
    }[];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(bodies.map((b) => b.final)).toEqual([false, false, false]);
    expect(bodies.map((b) => b.node?.id ?? b.run?.node_id)).toEqual(madeFirst.map((n) => n[0]!.id));
    for (const task of ['caw', 'parse', 'run']) {
      expect(await nodesOf(again.call, task), task).toHaveLength(1);
    }
    // Answered now, the key replays as any other, and another body under it is still a conflict.
    const replay = await send(again.call, requests[0]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await again.call(
      '/v1/nodes/create-and-wait',
      json({ ...held('caw'), task: 'other' }, 'POST', { 'Idempotency-Key': 'key-caw' }),
    );
    expect(other.status).toBe(409);
    await kill9(again);
  }, 60_000);
});
