/** `svc node jobs ls|cancel` against a real daemon, with a job its stand-in broker recorded. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalClient, Svc } from '@svc/client/node';
import { newId } from '@svc/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';

const idle = useIdleDaemon('svc-cli-j-');
const { svc } = idle;
let holder = '';
let job = '';

/** The node holding the broker slot records a running job with its own (node) token. */
beforeAll(async () => {
  const owner = createLocalClient({ home: idle.home() });
  const page = await owner.nodes.list();
  const node = page.data.find((n) => n.title === 'holds the only broker slot');
  if (node === undefined) throw new Error('no slot-holding node');
  holder = node.id;
  const launch = join(idle.home(), 'worktrees', holder, 'launch.json');
  for (let i = 0; i < 300 && !(existsSync(launch) && readFileSync(launch, 'utf8') !== ''); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { token } = JSON.parse(readFileSync(launch, 'utf8')) as { token: string };
  const broker = new Svc({ home: idle.home(), token });
  const recorded = await broker.request<{ id: string }>('POST', `/v1/nodes/${holder}/broker/jobs`, {
    state: 'running',
    kind: 'bash',
    title: 'make -j2',
  });
  job = recorded.id;
});

describe('svc node jobs', () => {
  it('ls shows the running job as a table, and --json the page', async () => {
    const ls = await svc('node', 'jobs', 'ls', holder);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/^ID\s+KIND\s+STATE\s+EXIT\s+STARTED\s+TITLE/);
    expect(ls.stdout).toMatch(new RegExp(`${job}\\s+bash\\s+running\\s+-\\s+just now\\s+make -j2`));
    const json = await svc('node', 'jobs', 'ls', holder, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      data: [{ id: job, node_id: holder, state: 'running', exit_code: null }],
      has_more: false,
    });
  });

  it('ls of a node without jobs says so', async () => {
    const other = await idle.createNode(['no', 'jobs']);
    const ls = await svc('node', 'jobs', 'ls', other.id);
    expect(ls).toMatchObject({ code: 0, stdout: 'no jobs\n' });
  });

  it('cancel asks the live broker to stop the job; a missing job exits 1', async () => {
    const res = await svc('node', 'jobs', 'cancel', holder, job);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^(asked ${job} to stop|${job} is cancelled)`));
    const missing = await svc('node', 'jobs', 'cancel', holder, newId('job'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^svc: .*no job/);
  });

  it('refuses bad ids and options before sending anything (exit 2)', async () => {
    const node = newId('node');
    for (const [args, message] of [
      [['node', 'jobs', 'ls', 'nd_bad'], /node id must be nd_/],
      [['node', 'jobs', 'ls', node, '--limit', '0'], /--limit/],
      [['node', 'jobs', 'ls', node, '--limit', '201'], /--limit must be at most 200/],
      [['node', 'jobs', 'ls', node, '--after', 'x'.repeat(201)], /--after must be a cursor/],
      [['node', 'jobs', 'cancel', node, 'job_bad'], /job id must be job_/],
      [['node', 'jobs', 'cancel', 'bad', newId('job')], /node id must be nd_/],
    ] as const) {
      await idle.expectUsage([...args], message);
    }
  });
});
