/**
 * `svc:conversations:read:app:<id>` on a real daemon (docs/nodes.md "Visibility"): an app holding
 * it reads another app's runs and nodes (the run, its trace and events, the nodes of its tree,
 * their transcripts), by the same tree rule as its own; it changes none of them (every write
 * answers 404, as for a node it cannot see), lists only its own runs, and a node token gets no
 * such reach whatever its scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { json } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

const READ_Y = 'svc:conversations:read:app:app-y';

let t: NodesDaemon;
let appY: string;
/** app-x with the scope (and `svc:act`, so a node write is refused for visibility, not scope). */
let reader: string;
/** app-x without it. */
let stranger: string;
/** app-x with the scope for app-z only. */
let otherReader: string;
// biome-ignore lint/suspicious/noExplicitAny: a Run as answered; assertions check it
let yRun: any;
/** A node under app-y's run root, made by the owner: app-y's by the tree rule. */
let yChild: Node;
// biome-ignore lint/suspicious/noExplicitAny: a Run as answered
let xRun: any;

const startRun = async (token: string, task: string) => {
  const res = await t.post('/v1/runs', { task, model: SCRIPTED }, token);
  if (res.status !== 200)
    throw new Error(`runs.start answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};

beforeAll(async () => {
  t = await startNodesDaemon();
  appY = (await t.appToken(['svc:llm'], { app_id: 'app-y' })).token;
  reader = (await t.appToken(['svc:llm', 'svc:act', READ_Y], { app_id: 'app-x' })).token;
  stranger = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-x' })).token;
  otherReader = (
    await t.appToken(['svc:llm', 'svc:act', 'svc:conversations:read:app:app-z'], {
      app_id: 'app-x',
    })
  ).token;
  yRun = await startRun(appY, 'the y conversation');
  t.recordTurn(yRun.node_id, 1);
  yChild = await t.createNode({ task: 'a child of y', parent_id: yRun.node_id });
  t.recordTurn(yChild.id, 1);
  xRun = await startRun(reader, 'the x conversation');
});
afterAll(() => t.stop());

/** Every read route over app-y's run and nodes, with what a reader's answer must hold. */
function reads(): { path: string; check: (body: unknown) => void }[] {
  const y = yRun.id;
  const root = yRun.node_id;
  return [
    { path: `/v1/runs/${y}`, check: (b) => expect(b).toMatchObject({ id: y, app_id: 'app-y' }) },
    {
      path: `/v1/runs/${y}/trace`,
      check: (b) =>
        expect((b as { data: { node_id: string }[] }).data.map((x) => x.node_id).sort()).toEqual(
          [root, yChild.id].sort(),
        ),
    },
    {
      path: `/v1/runs/${y}/events`,
      check: (b) =>
        expect((b as { data: { kind: string }[] }).data.map((e) => e.kind)).toContain(
          'run.started',
        ),
    },
    {
      path: `/v1/runs/${y}/wait?timeout_s=0`,
      check: (b) => expect(b).toMatchObject({ final: false, run: { id: y } }),
    },
    { path: `/v1/nodes/${root}`, check: (b) => expect(b).toMatchObject({ id: root }) },
    { path: `/v1/nodes/${yChild.id}`, check: (b) => expect(b).toMatchObject({ id: yChild.id }) },
    {
      path: `/v1/nodes/${root}/events`,
      check: (b) => expect((b as { data: unknown[] }).data.length).toBeGreaterThan(0),
    },
    {
      path: `/v1/nodes/${root}/outcome/wait?timeout_s=0`,
      check: (b) => expect(b).toMatchObject({ final: false, node: { id: root } }),
    },
    { path: `/v1/nodes/${root}/reports`, check: (b) => expect(b).toMatchObject({ data: [] }) },
    { path: `/v1/nodes/${root}/jobs`, check: (b) => expect(b).toMatchObject({ data: [] }) },
    {
      path: `/v1/canvas/history/read?node_id=${root}`,
      check: (b) =>
        expect((b as { data: { entries: { text: string }[] }[] }).data[0]!.entries).toEqual([
          { role: 'user', text: 'turn 1', truncated: false },
          { role: 'assistant', text: 'answer 1', truncated: false },
        ]),
    },
    {
      path: `/v1/canvas/history/read?node_id=${yChild.id}`,
      check: (b) => expect((b as { data: unknown[] }).data).toHaveLength(1),
    },
  ];
}

describe('an app holding svc:conversations:read:app:app-y', () => {
  it("reads app-y's run, trace, events and nodes, and a transcript, as app-y does", async () => {
    for (const { path, check } of reads()) {
      const res = await t.get(path, reader);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      check(res.body);
      // The same answer app-y gets for its own run.
      expect((await t.get(path, appY)).status, path).toBe(200);
    }
  });

  it("follows app-y's run stream", async () => {
    const res = await t.call(`/v1/runs/${yRun.id}/stream?follow=false`, { token: reader });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('run.started');
    const node = await t.call(`/v1/nodes/${yRun.node_id}/stream?follow=false`, { token: reader });
    expect(node.status).toBe(200);
    await node.body?.cancel();
  });

  it("finds app-y's nodes in nodes.list, the canvas and history search and stats", async () => {
    const listed = await t.get('/v1/nodes?limit=200', reader);
    const ids = (listed.body.data as Node[]).map((n) => n.id);
    expect(ids).toEqual(expect.arrayContaining([yRun.node_id, yChild.id, xRun.node_id]));
    const snapshot = await t.get('/v1/canvas/snapshot', reader);
    expect((snapshot.body.nodes as Node[]).map((n) => n.id)).toEqual(
      expect.arrayContaining([yRun.node_id, yChild.id]),
    );
    const rooted = await t.get(`/v1/canvas/snapshot?root_id=${yRun.node_id}`, reader);
    expect(rooted.status).toBe(200);
    const search = await t.get(`/v1/canvas/history/search?q=answer`, reader);
    expect(search.status).toBe(200);
    expect((search.body.data as { node_id: string }[]).map((h) => h.node_id).sort()).toEqual(
      [yRun.node_id, yChild.id].sort(),
    );
    const grep = await t.get(`/v1/canvas/history/grep?pattern=answer`, reader);
    expect(grep.status, JSON.stringify(grep.body)).toBe(200);
    expect(grep.body.data.length).toBe(2);
    const stats = await t.get('/v1/canvas/history/stats', reader);
    expect(stats.body.totals).toMatchObject({ nodes: 2, turns: 2 });
  });

  it('changes nothing of app-y: every write answers 404', async () => {
    const y = yRun.id;
    const root = yRun.node_id;
    const events = async () => (await t.get(`/v1/runs/${y}/events?limit=200`)).body.data.length;
    const before = await events();
    const writes: [string, string, unknown][] = [
      ['POST', `/v1/runs/${y}/messages`, { text: 'hi' }],
      ['POST', `/v1/runs/${y}/reply`, { text: 'hi' }],
      ['POST', `/v1/runs/${y}/interrupt`, {}],
      ['POST', `/v1/runs/${y}/cancel`, {}],
      ['POST', `/v1/runs/${y}/rename`, { title: 'mine now' }],
      ['DELETE', `/v1/runs/${y}`, undefined],
      ['POST', `/v1/nodes/${root}/messages`, { text: 'hi' }],
      ['POST', `/v1/nodes/${root}/cancel`, {}],
      ['POST', `/v1/nodes/${root}/interrupt`, {}],
      ['PATCH', `/v1/nodes/${root}`, { title: 'mine now' }],
      ['POST', `/v1/nodes/${root}/fork`, {}],
      ['POST', `/v1/nodes/${yChild.id}/fork`, {}],
      ['POST', `/v1/nodes/${root}/recycle`, { task: 'new work' }],
      ['POST', `/v1/nodes/${root}/revive`, {}],
      ['POST', `/v1/nodes/${yChild.id}/promote`, {}],
      ['POST', `/v1/nodes/${root}/relaunch-root`, {}],
      ['POST', `/v1/nodes/${root}/result`, { summary: 'done by x' }],
      ['POST', `/v1/nodes/${root}/worktree/abandon`, {}],
      ['POST', '/v1/nodes', { task: 'under y', model: SCRIPTED, parent_id: root }],
      ['POST', `/v1/nodes/${xRun.node_id}/demote`, { parent_id: root }],
    ];
    for (const [method, path, body] of writes) {
      const res = await t.call(path, {
        ...(body === undefined ? { method } : json(body, method)),
        token: reader,
      });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBe(404);
    }
    const run = await t.get(`/v1/runs/${y}`, appY);
    expect(run.body).toMatchObject({ title: 'the y conversation', state: 'queued' });
    const children = await t.get(`/v1/nodes?parent_id=${root}`);
    expect((children.body.data as Node[]).map((n) => n.id)).toEqual([yChild.id]);
    expect(await events()).toBe(before);
  });

  it("lists only its own runs: the scope reads app-y's run by id, it does not list it", async () => {
    const ids = ((await t.get('/v1/runs?limit=200', reader)).body.data as { id: string }[]).map(
      (r) => r.id,
    );
    expect(ids).toContain(xRun.id);
    expect(ids).not.toContain(yRun.id);
  });

  it('leaves attention to what the app can act on', async () => {
    t.broker(yChild.id, 'start');
    t.broker(yChild.id, 'fail', 'broke');
    try {
      const items = (await t.get('/v1/canvas/attention', reader)).body.data as {
        node_id: string | null;
      }[];
      expect(items.map((i) => i.node_id)).not.toContain(yChild.id);
      const owners = (await t.get('/v1/canvas/attention')).body.data as {
        node_id: string | null;
      }[];
      expect(owners.map((i) => i.node_id)).toContain(yChild.id);
    } finally {
      // Back to waiting-free: a revived child is queued, as before.
      expect((await t.post(`/v1/nodes/${yChild.id}/revive`)).status).toBe(200);
    }
  });
});

describe('without the scope for app-y', () => {
  it('an app without it, or with one for app-z, gets 404 on every read', async () => {
    for (const token of [stranger, otherReader]) {
      for (const { path } of reads()) {
        const res = await t.get(path, token);
        expect(res.status, path).toBe(404);
      }
      const stream = await t.call(`/v1/runs/${yRun.id}/stream?follow=false`, { token });
      expect(stream.status).toBe(404);
      await stream.body?.cancel();
      const listed = ((await t.get('/v1/nodes?limit=200', token)).body.data as Node[]).map(
        (n) => n.id,
      );
      expect(listed).not.toContain(yRun.node_id);
      expect(listed).not.toContain(yChild.id);
      const search = await t.get('/v1/canvas/history/search?q=answer', token);
      expect(search.body.data).toEqual([]);
    }
  });

  it("a node token of app-x's node sees nothing of app-y, though its scopes name it", async () => {
    const xRoot = (await t.get(`/v1/nodes/${xRun.node_id}`)).body as Node;
    expect(xRoot.scopes).toContain(READ_Y);
    const nodeToken = t.nodeToken(xRun.node_id);
    for (const { path } of reads()) {
      const res = await t.get(path, nodeToken);
      expect(res.status, path).toBe(404);
    }
    const listed = ((await t.get('/v1/nodes?limit=200', nodeToken)).body.data as Node[]).map(
      (n) => n.id,
    );
    expect(listed).toEqual([xRun.node_id]);
  });
});
