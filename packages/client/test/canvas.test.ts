/**
 * `client.canvas` and `client.canvas.history` against a real daemon, whose brokers run a scripted
 * model so turns are really recorded; `dashboard` over TCP through a fetch that records what is
 * sent; and the local id checks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createLocalClient,
  type Node,
  NotFoundError,
  PermissionDeniedError,
  Svc,
  UnprocessableEntityError,
} from '../src/node.ts';

let home: string;
let daemon: DaemonHandle;
let client: Svc;
let worked: Node;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-ccv-'));
  daemon = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 1 } });
  client = createLocalClient({ home, maxRetries: 0 });
  const waited = await client.nodes.createAndWait({
    task: 'find the walrus',
    model: {
      provider: 'scripted',
      model: 'replay',
      script: [
        {
          text: 'The walrus sleeps on the ice floe.',
          tool_calls: [
            { name: 'submit', input: { result: { found: true }, summary: 'walrus found' } },
          ],
        },
      ],
    },
    timeout_s: 60,
  });
  expect(waited.final).toBe(true);
  worked = waited.node;
}, 90_000);

afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('client.canvas', () => {
  it('attention and attentionCounts show an open inbox ticket', async () => {
    const request = await client.human.requests.create({
      title: 'Pick a name',
      body: 'for the bot',
    });
    const page = await client.canvas.attention({ kinds: ['ticket'] });
    expect(page.data).toEqual([
      expect.objectContaining({
        kind: 'ticket',
        ticket_id: request.ticket_id,
        title: 'Pick a name',
      }),
    ]);
    const counts = await client.canvas.attentionCounts();
    expect(counts.by_kind.ticket).toBe(1);
    expect(counts.total).toBeGreaterThanOrEqual(1);
  });

  it('snapshot answers the nodes with the seq to stream from; roster the live ones', async () => {
    const snap = await client.canvas.snapshot({ limit: 10 });
    expect(snap.seq).toBeGreaterThan(0);
    expect(snap.nodes.map((n) => n.id)).toContain(worked.id);
    const roster = await client.canvas.roster({ state: ['queued', 'running', 'waiting'] });
    expect(roster.data.map((e) => e.node_id)).not.toContain(worked.id);
    const stream = client.events.stream({ follow: false }, { after: snap.seq });
    for await (const event of stream) expect(event.seq).toBeGreaterThan(snap.seq);
  });
});

describe('client.canvas.dashboard', () => {
  it('sends exactly GET /v1/nodes and GET /v1/status, and no dashboard route', async () => {
    await daemon.enableTcp();
    const { base_url, token } = await client.request<{ base_url: string; token: string }>(
      'POST',
      '/v1/connect',
      {},
    );
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      sent.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search}`);
      return fetch(input, init);
    };
    const remote = new Svc({ baseUrl: base_url, token, fetch: recording, maxRetries: 0 });
    const board = await remote.canvas.dashboard({ state: ['done', 'queued'] });
    expect(sent.sort()).toEqual(['GET /v1/nodes?limit=200&state=done%2Cqueued', 'GET /v1/status']);
    expect(board.status).toMatchObject({ status: 'ready', brokers: { concurrency: 1 } });
    expect(board.nodes.data.map((n) => n.id)).toContain(worked.id);
    expect(board.counts.total).toBe(board.nodes.data.length);
    expect(board.counts.by_state.done).toBe(
      board.nodes.data.filter((n) => n.state === 'done').length,
    );
    expect(board.counts.by_state).toMatchObject({ running: 0, failed: 0 });
    const missing = await remote.request('GET', '/v1/canvas/dashboard').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
  });
});

describe('client.canvas.history', () => {
  it('searches, greps, reads and sums the recorded turns', async () => {
    const hits = await client.canvas.history.search({ q: 'walrus' });
    expect(hits.data).toEqual([
      expect.objectContaining({
        node_id: worked.id,
        turn: 1,
        snippet: expect.stringContaining('[walrus]'),
      }),
    ]);
    const grep = await client.canvas.history.grep({ pattern: 'ice \\w+', ignore_case: true });
    expect(grep.data).toEqual([
      expect.objectContaining({
        node_id: worked.id,
        where: 'text',
        line: 'The walrus sleeps on the ice floe.',
      }),
    ]);
    const transcript = await client.canvas.history.read(worked.id, { limit: 5 });
    expect(transcript.data[0]!.entries.map((e) => e.role)).toEqual(['user', 'assistant', 'tool']);
    expect(transcript.data[0]!.entries[2]!.text).toMatch(/^submit .*walrus found/);
    const stats = await client.canvas.history.stats({ group_by: 'model' });
    expect(stats.groups).toEqual([expect.objectContaining({ key: 'scripted/replay', turns: 1 })]);
  });

  it('maps a refused pattern to UnprocessableEntityError naming the field', async () => {
    const error = await client.canvas.history.grep({ pattern: '(a+)+' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).field).toBe('pattern');
  });

  it('checks node ids locally: TypeError, no request sent', () => {
    const fetch = vi.fn();
    const offline = new Svc({ baseUrl: 'http://127.0.0.1:9', token: 't', fetch });
    const bad = ['cron_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nd_short', '', 42];
    for (const id of bad) {
      expect(() => offline.canvas.history.read(id as string)).toThrow(/nodeId must be a node id/);
      expect(() => offline.canvas.history.search({ q: 'x', node_id: id as string })).toThrow(
        TypeError,
      );
      expect(() => offline.canvas.history.grep({ pattern: 'x', node_id: id as string })).toThrow(
        TypeError,
      );
      expect(() => offline.canvas.snapshot({ root_id: id as string })).toThrow(TypeError);
    }
    const missing = undefined as unknown as { q: string; pattern: string };
    expect(() => offline.canvas.history.search(missing)).toThrow(
      /params must be an object with `q`/,
    );
    expect(() => offline.canvas.history.grep(missing)).toThrow(/with `pattern`/);
    expect(fetch).not.toHaveBeenCalled();
  });
});

// Last: a prune with older_than_s 0 takes every finished tree, the worked node's too.
describe('client.canvas.prune', () => {
  it('prune: a dry run names the tree, then it is gone', async () => {
    const cancelled = await client.nodes.create({
      task: 'never mind',
      model: { provider: 'scripted', model: 'replay', script: [{ text: 'x' }] },
    });
    await client.nodes.cancel(cancelled.id);
    const dry = await client.canvas.prune({ older_than_s: 0, dry_run: true });
    expect(dry).toMatchObject({ dry_run: true });
    expect(dry.pruned).toContain(cancelled.id);
    const done = await client.canvas.prune({ older_than_s: 0 });
    expect(done.pruned).toEqual(dry.pruned);
    await expect(client.nodes.retrieve(cancelled.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('prune is refused to an app token', async () => {
    const { token } = await client.request<{ token: string }>('POST', '/v1/connect', {
      app_id: 'app-c',
      scopes: ['svc:llm'],
    });
    const app = createLocalClient({ home, token, maxRetries: 0 });
    await expect(app.canvas.prune({ dry_run: true })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});
