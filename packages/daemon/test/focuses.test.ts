/**
 * `/v1/focuses` on a real daemon: a node's terminal-multiplexer pane, set (replacing), listed,
 * read and forgotten, by whoever sees the node; written with `svc:act` or by the node itself; it
 * goes with its node.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from './helpers.ts';
import { type Answer, type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
/** App `app-fa` with `svc:act`, the same app without it, and another app with it. */
let appA: string;
let appANoAct: string;
let appB: string;

beforeAll(async () => {
  t = await startNodesDaemon();
  appA = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-fa' })).token;
  appANoAct = (await t.appToken(['svc:llm'], { app_id: 'app-fa' })).token;
  appB = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-fb' })).token;
});
afterAll(() => t?.stop());

const MISSING = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV';

async function send(path: string, init: Parameters<NodesDaemon['call']>[1]): Promise<Answer> {
  const res = await t.call(path, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}
const withToken = (token: string | undefined) => (token === undefined ? {} : { token });
const put = (nodeId: string, body: unknown, token?: string) =>
  send(`/v1/focuses/${nodeId}`, { ...json(body, 'PUT'), ...withToken(token) });
const get = (nodeId: string, token?: string) => t.get(`/v1/focuses/${nodeId}`, token);
const del = (nodeId: string, token?: string) =>
  send(`/v1/focuses/${nodeId}`, { method: 'DELETE', ...withToken(token) });
const list = (query: string, token?: string) => t.get(`/v1/focuses${query}`, token);

async function startRun(token: string): Promise<{ id: string; node_id: string }> {
  const res = await t.post('/v1/runs', { task: 'a run', model: SCRIPTED }, token);
  if (res.status !== 200) throw new Error(`runs.start answered ${res.status}`);
  return res.body;
}

/** The focus rows left in the database for these nodes, read past every rule of the daemon. */
function storedFocuses(ids: readonly string[]): number {
  const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
  try {
    const marks = ids.map(() => '?').join(', ');
    const row = db
      .prepare(`SELECT COUNT(*) AS n FROM focuses WHERE node_id IN (${marks})`)
      .get(...ids) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

const later = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('focuses: set, replace, retrieve, delete', () => {
  it('sets a pane, answers the focus, and setting again replaces it (created_at stays)', async () => {
    const node = await t.createNode({ task: 'shown in a pane' });
    const first = await put(node.id, { pane: '%12' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      node_id: node.id,
      pane: '%12',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: first.body.created_at,
    });
    expect(await get(node.id)).toEqual({ status: 200, body: first.body });

    await later();
    const second = await put(node.id, { pane: 'main:1.2' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ node_id: node.id, pane: 'main:1.2' });
    expect(second.body.created_at).toBe(first.body.created_at);
    expect(second.body.updated_at > first.body.updated_at).toBe(true);
    expect((await get(node.id)).body).toEqual(second.body);
    // One row per node: the replaced pane is gone.
    const mine = (await list('?limit=200')).body.data.filter(
      (f: { node_id: string }) => f.node_id === node.id,
    );
    expect(mine).toEqual([second.body]);
  });

  it('deletes a focus; then it is 404, and deleting again is 404', async () => {
    const node = await t.createNode({ task: 'focused, then not' });
    expect((await put(node.id, { pane: 'work:0' })).status).toBe(200);
    expect(await del(node.id)).toEqual({ status: 200, body: { node_id: node.id, deleted: true } });
    const gone = await get(node.id);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'not_found', field: 'node_id' });
    const again = await del(node.id);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'not_found', field: 'node_id' });
    expect((await list('?pane=work:0')).body.data).toEqual([]);
  });

  it('a node without a focus, or no such node, is 404 naming node_id', async () => {
    const node = await t.createNode({ task: 'never focused' });
    for (const id of [node.id, MISSING]) {
      const read = await get(id);
      expect(read.status, id).toBe(404);
      expect(read.body.error).toMatchObject({ code: 'not_found', field: 'node_id' });
      expect((await del(id)).status, id).toBe(404);
    }
    const set = await put(MISSING, { pane: '%1' });
    expect(set.status).toBe(404);
    expect(set.body.error).toMatchObject({ code: 'not_found', field: 'node_id' });
    expect(storedFocuses([MISSING])).toBe(0);
  });

  it('several nodes may share a pane; ?pane= lists those on it', async () => {
    const a = await t.createNode({ task: 'first in the pane' });
    const b = await t.createNode({ task: 'second in the pane' });
    const c = await t.createNode({ task: 'elsewhere' });
    expect((await put(a.id, { pane: 'shared:3.1' })).status).toBe(200);
    expect((await put(b.id, { pane: 'shared:3.1' })).status).toBe(200);
    expect((await put(c.id, { pane: 'other:0.0' })).status).toBe(200);
    const onPane = (await list('?pane=shared:3.1')).body;
    expect(onPane.data.map((f: { node_id: string }) => f.node_id)).toEqual([b.id, a.id]);
    expect(onPane).toMatchObject({ has_more: false, next_cursor: null });
    expect((await list('?pane=%25nothing-here')).body.data).toEqual([]);
  });

  it('lists newest node first, in pages of ?limit= resumed with ?after=', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const node = await t.createNode({ task: `paged ${i}` });
      ids.push(node.id);
      // Set in another order than the nodes were made: the order is by node, not by update.
      expect((await put(node.id, { pane: 'paged:0' })).status).toBe(200);
    }
    await later();
    expect((await put(ids[0]!, { pane: 'paged:0' })).status).toBe(200);
    const seen: string[] = [];
    let after = '';
    for (let round = 0; round < 5; round++) {
      const res = await list(`?pane=paged:0&limit=2${after}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((f: { node_id: string }) => f.node_id));
      if (!res.body.has_more) {
        expect(res.body.next_cursor).toBeNull();
        break;
      }
      expect(res.body.data).toHaveLength(2);
      expect(res.body.next_cursor).toBe(res.body.data[1].node_id);
      after = `&after=${res.body.next_cursor}`;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('answers 401 without a token', async () => {
    const res = await t.call('/v1/focuses', { token: null });
    expect(res.status).toBe(401);
  });
});

describe('focuses: bad input is a 4xx and changes nothing', () => {
  it('refuses a bad pane with 422 naming pane', async () => {
    const node = await t.createNode({ task: 'pane checks' });
    const kept = (await put(node.id, { pane: 'kept:1.1' })).body;
    const bad: unknown[] = [
      '',
      'has space',
      'tab\there',
      'line\nbreak',
      '\u001b[31mred',
      'del\u007f',
      'caf\u00e9',
      'x'.repeat(201),
      12,
      null,
    ];
    for (const pane of bad) {
      const res = await put(node.id, { pane });
      expect(res.status, JSON.stringify(pane)).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', field: 'pane' });
    }
    expect((await get(node.id)).body).toEqual(kept);
    // The longest pane, and every printable ASCII character, are taken.
    expect((await put(node.id, { pane: 'x'.repeat(200) })).status).toBe(200);
    const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
    expect((await put(node.id, { pane: printable })).body.pane).toBe(printable);
  });

  it('refuses an unknown field, a missing pane and malformed JSON', async () => {
    const node = await t.createNode({ task: 'body checks' });
    const kept = (await put(node.id, { pane: 'kept:2.2' })).body;
    const extra = await put(node.id, { pane: 'new:0', extra: 1 });
    expect(extra.status).toBe(422);
    expect(extra.body.error.message).toContain('extra');
    const missing = await put(node.id, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ field: 'pane' });
    const malformed = await send(`/v1/focuses/${node.id}`, {
      method: 'PUT',
      body: '{"pane":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect((await get(node.id)).body).toEqual(kept);
  });

  it('refuses a malformed node id or query with a 4xx envelope, never a 5xx', async () => {
    const cases: [string, Parameters<NodesDaemon['call']>[1]][] = [
      ['/v1/focuses/not-a-node', json({ pane: '%1' }, 'PUT')],
      ['/v1/focuses/run_01ARZ3NDEKTSV4RRFFQ69G5FAV', json({ pane: '%1' }, 'PUT')],
      ['/v1/focuses/nd_lowercase', {}],
      ['/v1/focuses/nd_', { method: 'DELETE' }],
      ['/v1/focuses?limit=0', {}],
      ['/v1/focuses?limit=abc', {}],
      ['/v1/focuses?after=garbage', {}],
      ['/v1/focuses?pane=has%20space', {}],
      [`/v1/focuses?pane=${'x'.repeat(201)}`, {}],
    ];
    for (const [path, init] of cases) {
      const res = await send(path, init);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body.error.code, path).toEqual(expect.any(String));
    }
    const badPane = await list('?pane=has%20space');
    expect(badPane.body.error).toMatchObject({ code: 'validation_failed', field: 'pane' });
    expect(storedFocuses(['not-a-node', 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV'])).toBe(0);
  });
});

describe('focuses: who reads and who writes', () => {
  let runA: { id: string; node_id: string };
  let childA: string;

  beforeAll(async () => {
    runA = await startRun(appA);
    childA = (await t.createNode({ task: 'part of A', parent_id: runA.node_id })).id;
  });

  it("an app reads and sets its runs' nodes; another app gets 404 and changes nothing", async () => {
    const set = await put(runA.node_id, { pane: 'app-a:1' }, appA);
    expect(set.status).toBe(200);
    expect((await get(runA.node_id, appA)).body).toEqual(set.body);

    for (const [what, res] of [
      ['get', await get(runA.node_id, appB)],
      ['put', await put(runA.node_id, { pane: 'app-b:1' }, appB)],
      ['delete', await del(runA.node_id, appB)],
    ] as const) {
      expect(res.status, what).toBe(404);
      expect(res.body.error, what).toMatchObject({ code: 'not_found', field: 'node_id' });
    }
    expect((await get(runA.node_id)).body).toEqual(set.body);

    const owner = (await t.createNode({ task: "the owner's" })).id;
    expect((await put(owner, { pane: 'owner:1' })).status).toBe(200);
    const idsOf = async (token?: string) =>
      (await list('?limit=200', token)).body.data.map((f: { node_id: string }) => f.node_id);
    expect(await idsOf(appA)).toContain(runA.node_id);
    expect(await idsOf(appA)).not.toContain(owner);
    expect(await idsOf(appB)).toEqual([]);
    expect(await idsOf()).toEqual(expect.arrayContaining([runA.node_id, owner]));
    // A child of the run's root is in the app's tree too.
    expect((await put(childA, { pane: 'app-a:2' }, appA)).status).toBe(200);
    expect(await idsOf(appA)).toEqual([childA, runA.node_id]);
    expect((await list('?pane=app-a:2', appB)).body.data).toEqual([]);
  });

  it('writing needs svc:act: a token without it reads but gets 403 scope_missing on a write', async () => {
    const before = (await get(runA.node_id, appANoAct)).body;
    expect(before.node_id).toBe(runA.node_id);
    for (const [what, res] of [
      ['put', await put(runA.node_id, { pane: 'no:act' }, appANoAct)],
      ['delete', await del(runA.node_id, appANoAct)],
      ['put unknown', await put(MISSING, { pane: 'no:act' }, appANoAct)],
    ] as const) {
      expect(res.status, what).toBe(403);
      expect(res.body.error, what).toMatchObject({
        code: 'scope_missing',
        field: 'svc:act',
        received: ['svc:llm'],
      });
    }
    expect((await get(runA.node_id)).body).toEqual(before);
  });

  it('a node token sees its own tree only, and sets its own node without svc:act', async () => {
    const run = await startRun(appANoAct);
    const child = (await t.createNode({ task: 'below', parent_id: run.node_id })).id;
    const own = t.nodeToken(run.node_id);

    const self = await put(run.node_id, { pane: '%40' }, own);
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ node_id: run.node_id, pane: '%40' });
    // Another node of its tree: it sees it, but without svc:act may not set it.
    const other = await put(child, { pane: '%41' }, own);
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    expect((await get(child, own)).status).toBe(404); // no focus yet, and none was made
    expect((await put(child, { pane: '%41' })).status).toBe(200);
    expect((await get(child, own)).body.pane).toBe('%41');
    // Not a node of another tree, even one it could otherwise write.
    expect((await get(runA.node_id, own)).status).toBe(404);
    const ids = (await list('?limit=200', own)).body.data.map(
      (f: { node_id: string }) => f.node_id,
    );
    expect(ids).toEqual([child, run.node_id]);
    expect(await del(run.node_id, own)).toEqual({
      status: 200,
      body: { node_id: run.node_id, deleted: true },
    });

    // A node token holding svc:act sets any node of its tree, and nothing outside it.
    const actor = t.nodeToken(runA.node_id);
    expect((await put(childA, { pane: 'from:root' }, actor)).status).toBe(200);
    expect((await put(run.node_id, { pane: 'from:root' }, actor)).status).toBe(404);
    expect((await put(child, { pane: 'from:root' }, actor)).status).toBe(404);
    expect((await get(child)).body.pane).toBe('%41');
  });
});

describe('focuses: a removed node takes its focus with it', () => {
  it('runs.delete removes the focuses of the whole tree, and no others', async () => {
    const run = await startRun(appA);
    const child = (await t.createNode({ task: 'child', parent_id: run.node_id })).id;
    const other = await startRun(appA);
    for (const id of [run.node_id, child, other.node_id]) {
      expect((await put(id, { pane: 'doomed:0' }, appA)).status).toBe(200);
    }
    expect((await t.post(`/v1/runs/${run.id}/cancel`, {}, appA)).status).toBe(200);
    const res = await t.call(`/v1/runs/${run.id}`, { method: 'DELETE', token: appA });
    expect(res.status).toBe(200);
    expect(storedFocuses([run.node_id, child])).toBe(0);
    expect(storedFocuses([other.node_id])).toBe(1);
    const left = (await list('?pane=doomed:0', appA)).body.data;
    expect(left.map((f: { node_id: string }) => f.node_id)).toEqual([other.node_id]);
    expect((await get(run.node_id, appA)).status).toBe(404);
  });

  it('canvas.prune removes them too', async () => {
    const root = await t.createNode({ task: 'to prune' });
    const child = await t.createNode({ task: 'to prune: part', parent_id: root.id });
    expect((await put(root.id, { pane: 'pruned:0' })).status).toBe(200);
    expect((await put(child.id, { pane: 'pruned:1' })).status).toBe(200);
    expect((await t.post(`/v1/nodes/${root.id}/cancel`, {})).status).toBe(200);
    const pruned = await t.post('/v1/canvas/prune', { older_than_s: 0, limit: 500 });
    expect(pruned.status).toBe(200);
    expect(pruned.body.pruned).toContain(root.id);
    expect(storedFocuses([root.id, child.id])).toBe(0);
  });
});
