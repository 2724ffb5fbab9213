/**
 * `svc canvas …` in-process against a real daemon whose brokers run scripted models, so turns
 * are really recorded; usage errors against a home with no daemon (exit 2, not 3: nothing sent).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalClient, type Node, type Svc } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

let home = '';
const empty = mkdtempSync(join(tmpdir(), 'svc-cli-cv-none-'));
let daemon: DaemonHandle;
let client: Svc;
let worker: Node;
let child: Node;
let parker: Node;

const svc = inProcessSvc(() => home);
const offline = inProcessSvc(() => empty);

const submits = (text: string, summary: string) => ({
  provider: 'scripted' as const,
  model: 'replay',
  script: [{ text, tool_calls: [{ name: 'submit', input: { summary } }] }],
});

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-cv-'));
  daemon = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 2 } });
  client = createLocalClient({ home, maxRetries: 0 });
  const done = await client.nodes.createAndWait({
    task: 'find the walrus',
    model: submits('The walrus sleeps on the ice floe.', 'found it'),
    timeout_s: 60,
  });
  expect(done.final).toBe(true);
  worker = done.node;
  const sub = await client.nodes.create({
    task: 'count the seals',
    parent_id: worker.id,
    model: submits('Seven seals.', 'seven'),
  });
  child = (await client.nodes.waitForOutcome(sub.id, { timeout_s: 60 })).node;
  parker = await client.nodes.create({
    task: 'wait for word',
    model: {
      provider: 'scripted',
      model: 'replay',
      script: [{ text: 'pausing', tool_calls: [{ name: 'yield', input: {} }] }],
    },
  });
  for (let i = 0; i < 300 && parker.state !== 'waiting'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    parker = await client.nodes.retrieve(parker.id);
  }
  expect(parker.state).toBe('waiting');
  await client.human.requests.create({ title: 'Name the bot', body: 'any name' });
}, 120_000);

afterAll(async () => {
  await daemon?.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

describe('svc canvas', () => {
  it('attention and counts', async () => {
    const res = await svc('canvas', 'attention');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/SINCE\s+KIND\s+SUBJECT\s+TITLE\s+REASON/);
    expect(res.stdout).toMatch(/ticket\s+tk_\w+\s+Name the bot\s+a question from the owner/);
    const json = JSON.parse(
      (await svc('canvas', 'attention', '--kinds', 'ticket', '--json')).stdout,
    );
    expect(json.data).toEqual([expect.objectContaining({ kind: 'ticket', title: 'Name the bot' })]);
    const counts = await svc('canvas', 'counts');
    expect(counts.stdout).toMatch(/^total\s+1$/m);
    expect(counts.stdout).toMatch(/^ticket\s+1$/m);
    const bad = await offline('canvas', 'attention', '--kinds', 'ticket,nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--kinds must be/);
  });

  it('snapshot draws the trees and says the seq to follow on from', async () => {
    const res = await svc('canvas', 'snapshot');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`done\\s+${worker.id}\\s+1\\s+find the walrus`));
    expect(res.stdout).toMatch(new RegExp(`done\\s+${child.id}\\s+1\\s+  count the seals`));
    // Newest tree first: the waiting node's tree (made last) before the walrus tree.
    expect(res.stdout.indexOf(parker.id)).toBeLessThan(res.stdout.indexOf(worker.id));
    expect(res.stderr).toMatch(/^as of event (\d+); follow on with: svc canvas watch --after \1$/m);
    const json = JSON.parse(
      (await svc('canvas', 'snapshot', '--root', worker.id, '--json')).stdout,
    );
    expect(json.nodes.map((n: { id: string }) => n.id).sort()).toEqual(
      [worker.id, child.id].sort(),
    );
    expect(json.seq).toBeGreaterThan(0);
    expect((await offline('canvas', 'snapshot', '--root', 'nd_bad')).code).toBe(2);
  });

  it('roster lists the live agents with their wait', async () => {
    // A parked node's broker exits just after the node turns waiting.
    for (let i = 0; i < 200; i++) {
      const { data } = await client.canvas.roster();
      if (data.find((e) => e.node_id === parker.id)?.broker === null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await svc('canvas', 'roster');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/NODE\s+STATE\s+BROKER\s+TURNS\s+TOKENS\s+COST\s+WAIT\s+TITLE/);
    expect(res.stdout).toMatch(
      new RegExp(
        `${parker.id}\\s+waiting\\s+-\\s+1\\s+\\d+\\+\\d+\\s+\\$0\\.0000\\s+mail\\s+wait for word`,
      ),
    );
    expect(res.stdout).not.toContain(worker.id);
    expect((await offline('canvas', 'roster', '--state', 'done')).code).toBe(2);
  });

  it('dashboard shows the status and the nodes by state', async () => {
    const res = await svc('canvas', 'dashboard');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^status\s+ready$/m);
    expect(res.stdout).toMatch(/^nodes\s+3: 1 waiting, 2 done$/m);
    const json = JSON.parse((await svc('canvas', 'dashboard', '--json')).stdout);
    expect(json).toMatchObject({ status: { status: 'ready' }, counts: { total: 3 } });
  });

  it('watch prints the event log, filtered, resumable, NDJSON with --json', async () => {
    const res = await svc('canvas', 'watch', '--no-follow', '--kinds', 'node.state');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines.every((l) => /node\.state/.test(l))).toBe(true);
    expect(res.stdout).toMatch(new RegExp(`${worker.id}\\s+new → queued \\(create\\)`));
    const json = (
      await svc('canvas', 'watch', '--no-follow', '--kinds', 'node.state', '--json')
    ).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; kind: string });
    expect(json).toHaveLength(lines.length);
    const middle = json[1]!.seq;
    const resumed = (
      await svc('canvas', 'watch', '--no-follow', '--after', String(middle), '--json')
    ).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number });
    expect(resumed[0]!.seq).toBe(middle + 1);
    expect((await offline('canvas', 'watch', '--after', 'x')).code).toBe(2);
  });
});

describe('svc canvas history', () => {
  it('search and grep find the recorded words', async () => {
    const found = await svc('canvas', 'history', 'search', 'walrus');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(new RegExp(`${worker.id}\\s+1\\s+\\S+\\s+.*\\[walrus\\]`));
    const lines = await svc('canvas', 'history', 'grep', '-i', 'ICE \\w+');
    expect(lines.stdout).toBe(`${worker.id}#1 text: The walrus sleeps on the ice floe.\n`);
    const none = await svc('canvas', 'history', 'grep', 'narwhal');
    expect(none.stdout).toBe('no matches\n');
  });

  it("grep's refusals: a bad pattern before sending, a runaway one from the daemon", async () => {
    const bad = await offline('canvas', 'history', 'grep', '(');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a regular expression/);
    const runaway = await svc('canvas', 'history', 'grep', '(a+)+');
    expect(runaway.code).toBe(1);
    expect(runaway.stderr).toMatch(/^svc: .*exponential time/);
    expect(runaway.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('read prints a transcript', async () => {
    const res = await svc('canvas', 'history', 'read', worker.id);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^── turn 1 \(scripted\/replay, \d+\+\d+ tokens\) /m);
    expect(res.stdout).toMatch(/^user: find the walrus$/m);
    expect(res.stdout).toMatch(/^assistant: The walrus sleeps on the ice floe\.$/m);
    expect(res.stdout).toMatch(/^tool: submit \{"summary":"found it"\} → ok: /m);
    expect((await offline('canvas', 'history', 'read', 'walrus')).code).toBe(2);
  });

  it('stats sums by model and since a time', async () => {
    const res = await svc('canvas', 'history', 'stats', '--by', 'model', '--since', '7d');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^scripted\/replay\s+3\s+3\s+/m);
    expect(res.stdout).toMatch(/nodes \(since .*\): 0 queued, 0 running, 1 waiting, 2 done/);
    const json = JSON.parse((await svc('canvas', 'history', 'stats', '--json')).stdout);
    expect(json).toMatchObject({ group_by: 'day', since: null, totals: { turns: 3 } });
    expect((await offline('canvas', 'history', 'stats', '--since', 'lately')).code).toBe(2);
    expect((await offline('canvas', 'history', 'stats', '--by', 'week')).code).toBe(2);
  });
});

// Last: it removes the finished trees the other tests read.
describe('svc canvas prune', () => {
  it('names the trees on a dry run, then removes them', async () => {
    expect((await offline('canvas', 'prune', '--older-than', 'soon')).code).toBe(2);
    const dry = await svc('canvas', 'prune', '--older-than', '0', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(`would prune 1 tree (2 nodes): ${worker.id}\n`);
    const kept = await svc('canvas', 'prune');
    expect(kept.stdout).toBe('pruned 0 trees (0 nodes)\n');
    const res = await svc('canvas', 'prune', '--older-than', '0', '--json');
    expect(JSON.parse(res.stdout)).toMatchObject({ pruned: [worker.id], count: 1, nodes: 2 });
    const snap = await svc('canvas', 'snapshot');
    expect(snap.stdout).not.toContain(worker.id);
    expect(snap.stdout).toContain(parker.id);
  });
});
