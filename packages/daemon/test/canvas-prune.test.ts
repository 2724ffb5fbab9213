/**
 * `POST /v1/canvas/prune` on a real daemon: only whole trees that ended long enough ago go, with
 * their turns, events and worktrees; a dry run removes nothing.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { openStore } from '../src/store/index.ts';
import { json } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';
import { eventBacklog } from './sse.ts';

let t: NodesDaemon;
let appToken: string;

const allEvents = (kinds?: string) => eventBacklog(t.call, kinds);

const prune = (body: Record<string, unknown>, token?: string) =>
  t.post('/v1/canvas/prune', body, token);

/** A root with one child, both cancelled (a cancel reaches the children). */
async function endedTree(task: string): Promise<{ root: Node; child: Node }> {
  const root = await t.createNode({ task });
  const child = await t.createNode({ task: `${task}: part`, parent_id: root.id });
  expect((await t.post(`/v1/nodes/${root.id}/cancel`, {})).status).toBe(200);
  return { root, child };
}

const worktree = (id: string) => join(t.home, 'worktrees', id);

beforeAll(async () => {
  t = await startNodesDaemon();
  appToken = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-p' })).token;
});

afterAll(async () => {
  await t?.stop();
});

describe('canvas prune', () => {
  let a: { root: Node; child: Node };
  let liveChildRoot: Node;
  let liveChild: Node;

  it('leaves trees that ended recently, and trees with a live node', async () => {
    a = await endedTree('old work');
    t.recordTurn(a.child.id, 1);
    mkdirSync(worktree(a.child.id), { recursive: true });
    writeFileSync(join(worktree(a.child.id), 'notes.txt'), 'kept until pruned');

    liveChildRoot = await t.createNode({ task: 'done root, live child' });
    liveChild = await t.createNode({ task: 'still working', parent_id: liveChildRoot.id });
    t.broker(liveChildRoot.id, 'start');
    expect((await t.post(`/v1/nodes/${liveChildRoot.id}/result`, { summary: 'ok' })).status).toBe(
      200,
    );

    const recent = await prune({ older_than_s: 3600 });
    expect(recent.body).toEqual({
      pruned: [],
      count: 0,
      nodes: 0,
      dry_run: false,
      has_more: false,
    });
  });

  it('a dry run names what would go and removes nothing', async () => {
    const before = (await allEvents()).length;
    const dry = await prune({ older_than_s: 0, dry_run: true });
    expect(dry.body).toEqual({
      pruned: [a.root.id],
      count: 1,
      nodes: 2,
      dry_run: true,
      has_more: false,
    });
    expect((await t.get(`/v1/nodes/${a.child.id}`)).status).toBe(200);
    expect(existsSync(worktree(a.child.id))).toBe(true);
    expect((await allEvents()).length).toBe(before);
  });

  it('removes the whole tree, its turns, events and worktrees', async () => {
    const res = await prune({ older_than_s: 0 });
    expect(res.body).toEqual({
      pruned: [a.root.id],
      count: 1,
      nodes: 2,
      dry_run: false,
      has_more: false,
    });
    for (const id of [a.root.id, a.child.id]) {
      expect((await t.get(`/v1/nodes/${id}`)).status).toBe(404);
    }
    expect((await t.get(`/v1/canvas/history/read?node_id=${a.child.id}`)).status).toBe(404);
    const side = openStore(join(t.home, 'svc.db'));
    try {
      const count = (sql: string) =>
        (side.db.sqlite.prepare(sql).get(a.child.id) as { n: number }).n;
      expect(count('SELECT count(*) AS n FROM turns WHERE node_id = ?')).toBe(0);
      expect(count('SELECT count(*) AS n FROM turn_search WHERE node_id = ?')).toBe(0);
    } finally {
      side.db.close();
    }
    expect(existsSync(worktree(a.child.id))).toBe(false);
    const events = await allEvents();
    const ids = new Set([a.root.id, a.child.id]);
    expect(events.filter((e) => ids.has(e.subject_id ?? ''))).toEqual([]);
    const pruned = events.filter((e) => e.kind === 'canvas.pruned');
    expect(pruned.map((e) => e.payload)).toEqual([
      { root_ids: [a.root.id], nodes: 2, run_ids: [], older_than_s: 0 },
    ]);
    // The tree with a live child stays until that child ends.
    expect((await t.get(`/v1/nodes/${liveChildRoot.id}`)).status).toBe(200);
    expect((await t.post(`/v1/nodes/${liveChild.id}/cancel`, {})).status).toBe(200);
    expect((await prune({ older_than_s: 0 })).body.pruned).toEqual([liveChildRoot.id]);
  });

  it("leaves an app's run unless asked to include runs", async () => {
    const started = await t.post('/v1/runs', { task: 'a run', model: SCRIPTED }, appToken);
    expect(started.status).toBe(200);
    const run = started.body as { id: string; node_id: string };
    expect((await t.post(`/v1/runs/${run.id}/cancel`, {}, appToken)).status).toBe(200);
    expect((await prune({ older_than_s: 0 })).body.pruned).toEqual([]);
    const res = await prune({ older_than_s: 0, include_runs: true });
    expect(res.body).toMatchObject({ pruned: [run.node_id], count: 1 });
    expect((await t.get(`/v1/runs/${run.id}`, appToken)).status).toBe(404);
    const [last] = (await allEvents('canvas.pruned')).slice(-1);
    expect(last?.payload).toMatchObject({ root_ids: [run.node_id], run_ids: [run.id] });
  });

  it('takes at most `limit` trees a call and says when more remain', async () => {
    for (const task of ['one', 'two', 'three']) await endedTree(task);
    const first = await prune({ older_than_s: 0, limit: 2 });
    expect(first.body).toMatchObject({ count: 2, nodes: 4, has_more: true });
    const second = await prune({ older_than_s: 0, limit: 2 });
    expect(second.body).toMatchObject({ count: 1, nodes: 2, has_more: false });
  });

  it("deletes each pruned node's node:<id> memory documents, and no others", async () => {
    const root = await t.createNode({ task: 'remembers' });
    const child = await t.createNode({ task: 'remembers too', parent_id: root.id });
    const kept = await t.createNode({ task: 'not pruned' });
    // The node writes its own space; the owner writes the others.
    const byNode = await t.call('/v1/memory/document', {
      ...json({ space: `node:${child.id}`, path: 'notes', content: 'mine' }, 'PUT'),
      token: t.nodeToken(child.id),
    });
    expect(byNode.status, await byNode.clone().text()).toBe(200);
    for (const space of [`node:${root.id}`, `node:${kept.id}`, 'user']) {
      const res = await t.call(
        '/v1/memory/document',
        json({ space, path: 'prune-notes', content: 'x' }, 'PUT'),
      );
      expect(res.status, space).toBe(200);
    }
    expect((await t.post(`/v1/nodes/${root.id}/cancel`, {})).status).toBe(200);
    expect((await prune({ older_than_s: 0 })).body.pruned).toContain(root.id);

    const doc = (space: string, path: string) =>
      t.get(`/v1/memory/document?space=${space}&path=${path}`);
    expect((await doc(`node:${child.id}`, 'notes')).status).toBe(404);
    expect((await doc(`node:${root.id}`, 'prune-notes')).status).toBe(404);
    expect((await doc(`node:${kept.id}`, 'prune-notes')).status).toBe(200);
    expect((await doc('user', 'prune-notes')).status).toBe(200);
    const side = openStore(join(t.home, 'svc.db'));
    try {
      const left = side.db.sqlite
        .prepare('SELECT count(*) AS n FROM memory_documents WHERE space IN (?, ?)')
        .get(`node:${root.id}`, `node:${child.id}`) as { n: number };
      expect(left.n).toBe(0);
    } finally {
      side.db.close();
    }
  });

  it("is the owner's alone, and a bad body changes nothing", async () => {
    const kept = await endedTree('kept');
    const app = await prune({ older_than_s: 0 }, appToken);
    expect(app.status).toBe(403);
    expect(app.body.error.code).toBe('forbidden');
    const nodeToken = await prune({ older_than_s: 0 }, t.nodeToken(kept.root.id));
    expect(nodeToken.status).toBe(403);
    for (const body of [{ older_than_s: -1 }, { older_than_s: 'week' }, { drop: true }]) {
      const res = await prune(body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await t.get(`/v1/nodes/${kept.root.id}`)).status).toBe(200);
  });
});
