/**
 * A node's bash calls as jobs, on a real broker with the scripted model: each call is a job
 * (`nodes.jobs.list`), recorded running before the command and ended after it; cancelling one
 * (`nodes.jobs.cancel`) stops just that command, and the node goes on to its next turn.
 */
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createLocalClient } from '@svc/client/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../src/daemon.ts';
import {
  bash,
  createNode,
  eventually,
  isFinal,
  ok,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon, tempHome } from './helpers.ts';

interface Job {
  id: string;
  kind: string;
  title: string;
  state: string;
  exit_code: number | null;
  finished_at: string | null;
}

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

const jobsOf = async (id: string) =>
  (await ok<{ data: Job[] }>(await t.call(`/v1/nodes/${id}/jobs`))).data;

describe('bash jobs', () => {
  it('each bash call is a job: running while it runs, then done or failed with its exit code', async () => {
    const node = await createNode(t.call, {
      task: 'two commands',
      model: scripted('jobs-plain', [bash('echo hi'), bash('exit 3'), submit({ ok: true })]),
    });
    await waitForNode(t.call, node.id, isFinal);
    const jobs = await jobsOf(node.id);
    expect(jobs.map((j) => [j.kind, j.title, j.state, j.exit_code])).toEqual([
      ['bash', 'exit 3', 'failed', 3],
      ['bash', 'echo hi', 'done', 0],
    ]);
    const results = await toolResults(t.call, node.id, 3);
    const ids = results
      .filter((r) => r.name === 'bash')
      .map((r) => (r as { job_id?: string }).job_id);
    expect(ids).toEqual([jobs[1]!.id, jobs[0]!.id]);
  });

  it('a long command is titled without splitting a surrogate pair, and runs', async () => {
    // 498 characters before an emoji: a cut at 499 would keep half of it.
    const command = `echo ${'a'.repeat(493)}😀${'b'.repeat(20)}`;
    const node = await createNode(t.call, {
      task: 'a long command',
      model: scripted('jobs-long', [bash(command), submit({})]),
    });
    await waitForNode(t.call, node.id, isFinal);
    const [job] = await jobsOf(node.id);
    expect(job).toMatchObject({ state: 'done', exit_code: 0 });
    expect(job!.title).toBe(`${command.slice(0, 498)}…`);
  });

  it('cancelling a running job stops that command only; the node goes on', async () => {
    const node = await createNode(t.call, {
      task: 'a long command',
      model: scripted('jobs-cancel', [bash('sleep 30'), submit({ went_on: true })]),
    });
    let running: Job | undefined;
    await eventually(
      async () => {
        running = (await jobsOf(node.id)).find((j) => j.state === 'running');
        return running !== undefined;
      },
      10_000,
      'a running job',
    );
    expect(running).toMatchObject({ kind: 'bash', title: 'sleep 30' });
    const asked = Date.now();
    const cancel = await t.call(`/v1/nodes/${node.id}/jobs/${running!.id}/cancel`, json({}));
    expect(cancel.status).toBe(200);
    const done = await waitForNode(t.call, node.id, isFinal);
    // The command was killed, not waited out: the broker watches for cancels while it runs.
    expect(Date.now() - asked).toBeLessThan(15_000);
    expect(done).toMatchObject({ state: 'done', outcome: { result: { went_on: true } } });
    const [job] = await jobsOf(node.id);
    expect(job).toMatchObject({ id: running!.id, state: 'cancelled', exit_code: null });
    const [result] = await toolResults(t.call, node.id, 1);
    expect(result?.output).toMatchObject({
      signal: 'SIGKILL',
      cancelled: `job ${running!.id} was cancelled (nodes.jobs.cancel)`,
    });
  }, 30_000);

  it('a job left running by a broker that died ends cancelled; the relaunch runs the call anew', async () => {
    const node = await createNode(t.call, {
      task: 'its broker dies while its command runs',
      model: scripted('jobs-broker-dies', [bash('sleep 30'), submit({})]),
    });
    let first: Job | undefined;
    await eventually(
      async () => {
        first = (await jobsOf(node.id)).find((j) => j.state === 'running');
        return first !== undefined;
      },
      10_000,
      'a running job',
    );
    const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
    const { pid } = db
      .prepare('SELECT pid FROM brokers WHERE node_id = ? AND ended_at IS NULL')
      .get(node.id) as { pid: number };
    db.close();
    // SIGKILL: the broker settles nothing itself; the daemon must.
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => {
        const jobs = await jobsOf(node.id);
        const old = jobs.find((j) => j.id === first!.id);
        return old?.state === 'cancelled' && jobs.some((j) => j.state === 'running');
      },
      15_000,
      "the dead broker's job cancelled and the relaunch running the call again",
    );
    expect((await t.call(`/v1/nodes/${node.id}/cancel`, json({}))).status).toBe(200);
  }, 40_000);
});

describe('bash jobs across a daemon restart', () => {
  it('a job running when the daemon stopped is settled cancelled when the next one starts', async () => {
    const home = tempHome();
    const first = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 1 } });
    const client = createLocalClient({ home });
    const node = await client.nodes.create({
      task: 'sleeps through a restart',
      model: {
        provider: 'scripted',
        model: 'jobs-restart',
        script: [bash('sleep 30'), submit({})],
      },
    } as never);
    let stale: string | undefined;
    await eventually(
      async () => {
        const page = await client.nodes.jobs.list(node.id);
        stale = page.data.find((j) => j.state === 'running')?.id;
        return stale !== undefined;
      },
      10_000,
      'a running job',
    );
    await first.close();
    const second = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 1 } });
    try {
      const again = createLocalClient({ home });
      const jobs = (await again.nodes.jobs.list(node.id)).data;
      expect(jobs.find((j) => j.id === stale)).toMatchObject({ state: 'cancelled' });
      await again.nodes.cancel(node.id);
    } finally {
      await second.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 40_000);
});

describe("a real broker's file tools", () => {
  it("keep a node out of svc's home, whatever its scopes: the launch names the home", async () => {
    const home = realpathSync(t.home);
    const node = await createNode(t.call, {
      task: 'read what is not yours',
      scopes: ['svc:llm', 'svc:act', `svc:files:read:user:${join(home, '..')}`],
      model: scripted('fence', [
        toolCall('read_file', { path: join(home, 'owner.token') }),
        submit({ ok: true }),
      ]),
    });
    await waitForNode(t.call, node.id, isFinal);
    const [read] = await toolResults(t.call, node.id, 1);
    expect(read).toMatchObject({ name: 'read_file', status: 'error' });
    expect(JSON.stringify(read!.output)).not.toContain(t.ownerToken);
  });
});
