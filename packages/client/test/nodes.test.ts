/** `client.nodes` and `client.runs` against a real daemon over its unix socket (and TCP for an app). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictError,
  createLocalClient,
  NotFoundError,
  PermissionDeniedError,
  Svc,
} from '../src/node.ts';

const MODEL = {
  provider: 'scripted' as const,
  model: 'replay',
  script: [{ text: 'done' }],
};
/** One broker slot, held by an idle stand-in on the first node: no node changes behind a test. */
const IDLE_BROKER = fileURLToPath(
  new URL('../../daemon/test/fixtures/idle-broker.ts', import.meta.url),
);
let home: string;
let daemon: DaemonHandle;
let client: Svc;
let app: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cn-'));
  daemon = await startDaemon({
    home,
    logLevel: 'warn',
    brokers: { concurrency: 1, entry: IDLE_BROKER },
  });
  client = createLocalClient({ home, maxRetries: 0 });
  await client.nodes.create({ task: 'holds the only broker slot', model: MODEL });
  const tcp = await daemon.enableTcp();
  const { token } = (await client.request('POST', '/v1/connect', {
    app_id: 'app-one',
    scopes: ['svc:llm'],
  })) as { token: string };
  app = new Svc({ baseUrl: tcp.base_url, token, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('client.nodes', () => {
  it('creates, lists, retrieves, messages, cancels and reads the outcome', async () => {
    const node = await client.nodes.create({ task: 'hello', model: MODEL, metadata: { k: 'v' } });
    expect(node).toMatchObject({ state: 'queued', title: 'hello', metadata: { k: 'v' } });
    const list = await client.nodes.list({ state: ['queued'], parent_id: 'none', limit: 50 });
    expect(list.data.map((n) => n.id)).toContain(node.id);
    await expect(client.nodes.retrieve(node.id)).resolves.toMatchObject({ id: node.id });
    await expect(client.nodes.outcome(node.id)).rejects.toBeInstanceOf(ConflictError);
    const mail = await client.nodes.message(node.id, { text: 'more' });
    expect(mail).toMatchObject({ seq: 1, text: 'more' });
    const updated = await client.nodes.update(node.id, { title: 'renamed' });
    expect(updated.title).toBe('renamed');
    const cancelled = await client.nodes.cancel(node.id, { reason: 'no longer needed' });
    expect(cancelled.state).toBe('cancelled');
    await expect(client.nodes.outcome(node.id)).resolves.toMatchObject({
      state: 'cancelled',
      error: { code: 'cancelled', message: 'no longer needed' },
    });
    const revived = await client.nodes.revive(node.id, { message: 'try again' });
    expect(revived.state).toBe('queued');
    await expect(client.nodes.reports.list(node.id)).resolves.toMatchObject({ data: [] });
    await expect(client.nodes.jobs.list(node.id)).resolves.toMatchObject({ data: [] });
    const events = await client.nodes.events(node.id, { kinds: 'node.state' });
    expect(events.data.map((e) => (e.payload as { action: string }).action)).toEqual([
      'create',
      'cancel',
      'revive',
    ]);
  });

  it('checks ids before any request', () => {
    expect(() => client.nodes.retrieve('run_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toThrow(
      /nodeId must be a node id/,
    );
    expect(() => client.nodes.jobs.cancel('nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x')).toThrow(
      /jobId must be a job id/,
    );
    expect(() =>
      client.nodes.waitForOutcome('nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', { timeout_s: -1 }),
    ).toThrow(/timeout_s must be a non-negative number/);
  });

  it('waitForOutcome answers final: false after its deadline and final: true once the node ends', async () => {
    const node = await client.nodes.create({ task: 'wait for me', model: MODEL });
    const started = Date.now();
    const early = await client.nodes.waitForOutcome(node.id, { timeout_s: 1 });
    expect(early).toMatchObject({ final: false, node: { id: node.id } });
    expect(Date.now() - started).toBeLessThan(5_000);
    const waiting = client.nodes.waitForOutcome(node.id, { timeout_s: 30 });
    setTimeout(() => void client.nodes.cancel(node.id), 200);
    await expect(waiting).resolves.toMatchObject({ final: true, node: { state: 'cancelled' } });
  });

  it('createAndWait and parse answer the node when the wait ends first', async () => {
    const waited = await client.nodes.createAndWait({ task: 'quick', model: MODEL, timeout_s: 1 });
    expect(waited).toMatchObject({ final: false, node: { state: 'queued', task: 'quick' } });
    const parsed = await client.nodes.parse({
      task: 'typed',
      model: MODEL,
      output_schema: { type: 'object' },
      timeout_s: 0,
    });
    expect(parsed).toMatchObject({ final: false, parsed: null });
  });

  it("long waits honour the caller's timeout option: final: false inside it, not an error", async () => {
    const node = await client.nodes.create({ task: 'stays queued', model: MODEL });
    const bound = { timeout: 2_000 };
    let started = Date.now();
    const waited = await client.nodes.waitForOutcome(node.id, { timeout_s: 120 }, bound);
    expect(waited).toMatchObject({ final: false, node: { id: node.id, state: 'queued' } });
    expect(Date.now() - started).toBeLessThan(bound.timeout);
    started = Date.now();
    const parsed = await client.nodes.parse(
      { task: 'stays queued too', model: MODEL, output_schema: {}, timeout_s: 120 },
      bound,
    );
    expect(parsed).toMatchObject({ final: false, parsed: null });
    expect(Date.now() - started).toBeLessThan(bound.timeout);
    started = Date.now();
    const created = await client.nodes.createAndWait(
      { task: 'and this one', model: MODEL, timeout_s: 120 },
      bound,
    );
    expect(created.final).toBe(false);
    expect(Date.now() - started).toBeLessThan(bound.timeout);
  });

  it('streams a node with its subtree until its outcome', async () => {
    const node = await client.nodes.create({ task: 'stream me', model: MODEL });
    const stream = client.nodes.stream(node.id, { subtree: true });
    setTimeout(() => void client.nodes.cancel(node.id), 100);
    const kinds: string[] = [];
    for await (const event of stream) {
      kinds.push(event.kind);
      if (event.kind === 'node.outcome' || kinds.length > 20) break;
    }
    expect(kinds).toEqual(['node.state', 'node.state', 'node.outcome']);
  });

  it('worktree.close and worktree.abandon: a final node only', async () => {
    const node = await client.nodes.create({ task: 'never runs', model: MODEL });
    await expect(client.nodes.worktree.close(node.id)).rejects.toBeInstanceOf(ConflictError);
    await client.nodes.cancel(node.id);
    const closed = await client.nodes.worktree.close(node.id);
    expect(closed).toEqual({
      node_id: node.id,
      path: join(home, 'worktrees', node.id),
      exists: false,
      removed: false, // it never ran, so it never had one
      branch: null, // a plain directory
    });
    await expect(client.nodes.worktree.abandon(node.id)).resolves.toMatchObject({ exists: false });
    expect(() => client.nodes.worktree.abandon('run_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toThrow(
      TypeError,
    );
  });

  it('fork, promote, demote, recycle and reviveAll', async () => {
    const a = await client.nodes.create({ task: 'a', model: MODEL });
    const b = await client.nodes.create({ task: 'b', model: MODEL });
    const fork = await client.nodes.fork(a.id, { title: 'a fork' });
    expect(fork).toMatchObject({ state: 'queued', title: 'a fork' });
    const demoted = await client.nodes.demote(fork.id, { parent_id: b.id });
    expect(demoted).toMatchObject({ parent_id: b.id, root_id: b.id });
    await expect(client.nodes.demote(b.id, { parent_id: fork.id })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(client.nodes.promote(fork.id)).resolves.toMatchObject({ parent_id: null });
    await expect(client.nodes.recycle(a.id, { task: 'again' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(client.nodes.reviveAll({ states: ['failed'] })).resolves.toMatchObject({
      count: 0,
    });
    await expect(app.nodes.reviveAll()).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('client.runs', () => {
  it('an app starts, lists, messages, renames, traces and deletes its own runs', async () => {
    const run = await app.runs.start({ task: 'app work', model: MODEL });
    expect(run).toMatchObject({ app_id: 'app-one', state: 'queued', scopes: ['svc:llm'] });
    expect((await app.runs.list()).data.map((r) => r.id)).toContain(run.id);
    await expect(app.runs.listAll()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(client.runs.listAll({ app_id: 'app-one' })).resolves.toMatchObject({
      data: [{ id: run.id }],
    });
    await expect(app.runs.reply(run.id, { text: 'early' })).rejects.toBeInstanceOf(ConflictError);
    await expect(app.runs.message(run.id, { text: 'note' })).resolves.toMatchObject({ seq: 1 });
    await expect(app.runs.rename(run.id, { title: 'named' })).resolves.toMatchObject({
      title: 'named',
    });
    await expect(app.runs.trace(run.id)).resolves.toMatchObject({ data: [] });
    const events = await app.runs.events(run.id);
    expect(events.data.map((e) => e.kind)).toContain('run.started');
    await expect(app.runs.delete(run.id)).rejects.toBeInstanceOf(ConflictError);
    const interrupted = await app.runs.interrupt(run.id);
    expect(interrupted.state).toBe('waiting');
    await expect(app.runs.reply(run.id, { text: 'go' })).resolves.toMatchObject({ seq: 2 });
    await expect(app.runs.cancel(run.id)).resolves.toMatchObject({ state: 'cancelled' });
    await expect(app.runs.wait(run.id, { timeout_s: 5 })).resolves.toMatchObject({ final: true });
    await expect(app.runs.delete(run.id)).resolves.toEqual({ id: run.id, deleted: true });
    await expect(app.runs.get(run.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('streams a run until its outcome', async () => {
    const run = await app.runs.start({ task: 'streamed', model: MODEL });
    const stream = app.runs.stream(run.id);
    setTimeout(() => void app.runs.cancel(run.id), 100);
    const kinds: string[] = [];
    for await (const event of stream) {
      kinds.push(event.kind);
      if (event.kind === 'run.outcome' || kinds.length > 20) break;
    }
    expect(kinds).toEqual([
      'node.state',
      'run.started',
      'node.state',
      'run.state',
      'node.outcome',
      'run.outcome',
    ]);
  });
});
