import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
let appA: string;
let appB: string;
beforeAll(async () => {
  t = await startNodesDaemon();
  appA = (await t.appToken(['svc:llm'], { app_id: 'app-a' })).token;
  appB = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-b' })).token;
});
afterAll(() => t.stop());

const start = async (token: string, body: Record<string, unknown> = {}) => {
  const res = await t.post('/v1/runs', { task: 'a run', model: SCRIPTED, ...body }, token);
  if (res.status !== 200)
    throw new Error(`runs.start answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};

describe('runs.start', () => {
  it("starts a root node inside the app's grant; svc:llm suffices", async () => {
    const run = await start(appA, { metadata: { ticket: '42' } });
    expect(run).toMatchObject({
      app_id: 'app-a',
      title: 'a run',
      state: 'queued',
      scopes: ['svc:llm'],
      usage: { turns: 0 },
      outcome: null,
      metadata: { ticket: '42' },
    });
    expect(run.id).toMatch(/^run_/);
    const root = (await t.get(`/v1/nodes/${run.node_id}`)).body;
    expect(root).toMatchObject({ run_id: run.id, parent_id: null, app_id: 'app-a' });
    const wider = await t.post(
      '/v1/runs',
      { task: 'x', model: SCRIPTED, scopes: ['svc:llm', 'svc:act'] },
      appA,
    );
    expect(wider.status).toBe(403);
    expect(wider.body.error).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    expect(
      (await t.post('/v1/runs', { task: 'x', model: SCRIPTED, parent_id: run.node_id }, appA))
        .status,
    ).toBe(422);
  });

  it("a child of a run's node stays inside the run's grant, even when the owner creates it", async () => {
    const run = await start(appA);
    const res = await t.post('/v1/nodes', {
      task: 'child',
      model: SCRIPTED,
      parent_id: run.node_id,
      scopes: ['svc:llm', 'svc:act'],
    });
    expect(res.status).toBe(403);
    expect(res.body.error.received).toEqual(['svc:llm']);
    const inherited = await t.post('/v1/nodes', {
      task: 'child',
      model: SCRIPTED,
      parent_id: run.node_id,
    });
    expect(inherited.body).toMatchObject({ run_id: run.id, root_id: run.node_id });
  });

  it('a node token starts no run: a run would outlive the node, outside the tree it sees', async () => {
    const owners = await t.createNode({ task: 'owner node' });
    for (const path of ['/v1/runs', '/v1/runs/parse']) {
      const res = await t.post(
        path,
        { task: 'x', model: SCRIPTED, ...(path.endsWith('parse') && { output_schema: {} }) },
        t.nodeToken(owners.id),
      );
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    // It makes children instead.
    expect(
      (await t.post('/v1/nodes', { task: 'c', model: SCRIPTED }, t.nodeToken(owners.id))).status,
    ).toBe(200);
  });
});

describe("fork and demote into a run's tree stay inside its grant", () => {
  const GRANT = ['svc:llm', 'svc:act'];
  let narrow: string;
  let wide: string;
  beforeAll(async () => {
    // Two tokens of one app: the run is started with the narrow one, so its grant is GRANT.
    narrow = (await t.appToken(GRANT, { app_id: 'app-g' })).token;
    wide = (await t.appToken([...GRANT, 'svc:schedule'], { app_id: 'app-g' })).token;
  });
  const runNodes = async (runId: string) =>
    (await t.get(`/v1/nodes?run_id=${runId}&limit=200`)).body.data.map((n: { id: string }) => n.id);
  const where = async (id: string) => {
    const { parent_id, root_id, run_id, scopes } = (await t.get(`/v1/nodes/${id}`)).body;
    return { parent_id, root_id, run_id, scopes };
  };

  it("owner fork under a run's node: an inherited null narrows to the grant, as create does; a list outside it is 403", async () => {
    const run = await start(narrow);
    const source = await t.createNode({ task: 'owner node' });
    expect(source.scopes).toBeNull();
    const fork = await t.post(`/v1/nodes/${source.id}/fork`, { parent_id: run.node_id });
    expect(fork.status).toBe(200);
    expect(fork.body).toMatchObject({ run_id: run.id, root_id: run.node_id, scopes: GRANT });
    const before = await runNodes(run.id);
    const wider = await t.post(`/v1/nodes/${source.id}/fork`, {
      parent_id: run.node_id,
      scopes: [...GRANT, 'svc:schedule'],
    });
    expect(wider.status).toBe(403);
    expect(wider.body.error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:schedule',
      received: GRANT,
    });
    expect(wider.body.error.message).toContain("outside the app's grant");
    expect(await runNodes(run.id)).toEqual(before);
  });

  it("owner demote under a run's node: a subtree with a node outside the grant (or with no list) is 403 and nothing moves", async () => {
    const run = await start(narrow);
    const loose = await t.createNode({ task: 'owner node, no list' });
    const refused = await t.post(`/v1/nodes/${loose.id}/demote`, { parent_id: run.node_id });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'scope_missing', received: GRANT });
    expect(await where(loose.id)).toEqual({
      parent_id: null,
      root_id: loose.id,
      run_id: null,
      scopes: null,
    });

    // The top is covered; a grandchild is not: the whole subtree stays where it was.
    const top = await t.createNode({ task: 'top', scopes: ['svc:llm'] });
    const mid = await t.createNode({ task: 'mid', parent_id: top.id, scopes: GRANT });
    const low = await t.createNode({
      task: 'low',
      parent_id: mid.id,
      scopes: [...GRANT, 'svc:schedule'],
    });
    const partly = await t.post(`/v1/nodes/${top.id}/demote`, { parent_id: run.node_id });
    expect(partly.status).toBe(403);
    expect(partly.body.error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:schedule',
      received: GRANT,
    });
    for (const node of [top, mid, low]) {
      expect((await where(node.id)).run_id).toBeNull();
      expect((await where(node.id)).root_id).toBe(top.id);
    }
    expect((await where(top.id)).parent_id).toBeNull();

    // Without the wide grandchild the subtree is covered and moves, its lists unchanged.
    await t.post(`/v1/nodes/${low.id}/promote`);
    const moved = await t.post(`/v1/nodes/${top.id}/demote`, { parent_id: run.node_id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ parent_id: run.node_id, run_id: run.id });
    expect(await where(mid.id)).toEqual({
      parent_id: top.id,
      root_id: run.node_id,
      run_id: run.id,
      scopes: GRANT,
    });
  });

  it('a second token of the app holding more than the grant cannot fork, demote or create its wider node into the run; covered ones can', async () => {
    const run = await start(narrow);
    const mine = await t.createNode({ task: 'wide node' }, wide);
    expect(mine.scopes).toEqual([...GRANT, 'svc:schedule']);
    const before = await runNodes(run.id);
    for (const [path, body] of [
      [`/v1/nodes/${mine.id}/fork`, { parent_id: run.node_id }],
      [`/v1/nodes/${mine.id}/demote`, { parent_id: run.node_id }],
      ['/v1/nodes', { task: 'child', model: SCRIPTED, parent_id: run.node_id }],
    ] as const) {
      const res = await t.post(path, body, wide);
      expect(res.status, path).toBe(403);
      expect(res.body.error, path).toMatchObject({
        code: 'scope_missing',
        field: 'svc:schedule',
        received: GRANT,
      });
    }
    expect(await runNodes(run.id)).toEqual(before);
    expect(await where(mine.id)).toMatchObject({ parent_id: null, run_id: null });

    // Narrowed to the grant, the same token's fork goes in; a covered node demotes (either token).
    const narrowed = await t.post(
      `/v1/nodes/${mine.id}/fork`,
      { parent_id: run.node_id, scopes: ['svc:llm'] },
      wide,
    );
    expect(narrowed.status).toBe(200);
    expect(narrowed.body).toMatchObject({ run_id: run.id, scopes: ['svc:llm'] });
    const covered = await t.createNode({ task: 'covered node' }, narrow);
    const fork = await t.post(`/v1/nodes/${covered.id}/fork`, { parent_id: run.node_id }, wide);
    expect(fork.body).toMatchObject({ run_id: run.id, scopes: GRANT });
    const demoted = await t.post(
      `/v1/nodes/${covered.id}/demote`,
      { parent_id: run.node_id },
      wide,
    );
    expect(demoted.status).toBe(200);
    expect(demoted.body).toMatchObject({ run_id: run.id, root_id: run.node_id, scopes: GRANT });
  });
});

describe('visibility and lists', () => {
  it("an app sees and acts on its own runs only; another app's answer 404", async () => {
    const run = await start(appA);
    for (const [method, path] of [
      ['GET', `/v1/runs/${run.id}`],
      ['GET', `/v1/runs/${run.id}/trace`],
      ['GET', `/v1/runs/${run.id}/events`],
      ['POST', `/v1/runs/${run.id}/cancel`],
      ['POST', `/v1/runs/${run.id}/rename`],
      ['DELETE', `/v1/runs/${run.id}`],
    ] as const) {
      const body = path.endsWith('rename') ? { title: 'x' } : {};
      const res = await t.call(path, {
        ...(method === 'GET' ? {} : json(body, method)),
        token: appB,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const mine = (await t.get('/v1/runs?limit=200', appA)).body.data;
    expect(mine.map((r: { id: string }) => r.id)).toContain(run.id);
    expect(
      (await t.get('/v1/runs?limit=200', appB)).body.data.map((r: { id: string }) => r.id),
    ).not.toContain(run.id);
    expect((await t.get('/v1/runs/all?limit=200', appA)).status).toBe(403);
    const all = (await t.get('/v1/runs/all?app_id=app-a&limit=200')).body.data;
    expect(all.every((r: { app_id: string }) => r.app_id === 'app-a')).toBe(true);
    expect(all.map((r: { id: string }) => r.id)).toContain(run.id);
    expect((await t.get(`/v1/runs/${run.id}`)).status).toBe(200); // the owner sees every run
  });

  it('lists newest first with a cursor and a state filter', async () => {
    const app = (await t.appToken(['svc:llm'], { app_id: 'app-list' })).token;
    const runs = [await start(app), await start(app), await start(app)];
    await t.post(`/v1/runs/${runs[1].id}/cancel`, {}, app);
    const first = (await t.get('/v1/runs?limit=2', app)).body;
    const second = (await t.get(`/v1/runs?limit=2&after=${first.next_cursor}`, app)).body;
    expect([...first.data, ...second.data].map((r: { id: string }) => r.id)).toEqual(
      runs.map((r) => r.id).reverse(),
    );
    const cancelled = (await t.get('/v1/runs?state=cancelled', app)).body.data;
    expect(cancelled.map((r: { id: string }) => r.id)).toEqual([runs[1].id]);
  });
});

describe('a node token', () => {
  it("lists only its own tree's run, not its app's others (nor, for an owner node, the owner's)", async () => {
    const app = (await t.appToken(['svc:llm'], { app_id: 'app-node-list' })).token;
    const mine = await start(app);
    const other = await start(app);
    const seen = (await t.get('/v1/runs', t.nodeToken(mine.node_id))).body.data;
    expect(seen.map((r: { id: string }) => r.id)).toEqual([mine.id]);
    expect((await t.get(`/v1/runs/${other.id}`, t.nodeToken(mine.node_id))).status).toBe(404);
    const owners = await t.createNode({ task: 'no run' });
    expect((await t.get('/v1/runs', t.nodeToken(owners.id))).body.data).toEqual([]);
  });
});

describe('a node token changing its run', () => {
  it('needs svc:act, as for the same operation on the root through /v1/nodes', async () => {
    const run = await start(appA); // app-a holds svc:llm only, so its tree does too
    const child = await t.createNode({ task: 'child', parent_id: run.node_id });
    expect(child.scopes).toEqual(['svc:llm']);
    const token = t.nodeToken(child.id);
    const root = await t.post(`/v1/nodes/${run.node_id}/messages`, { text: 'x' }, token);
    expect(root.body.error).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    const writes: [string, string, Record<string, unknown>][] = [
      ['POST', 'messages', { text: 'x' }],
      ['POST', 'reply', { text: 'x' }],
      ['POST', 'rename', { title: 'renamed by a node' }],
      ['POST', 'interrupt', {}],
      ['POST', 'cancel', {}],
      ['DELETE', '', {}],
    ];
    for (const [method, path, body] of writes) {
      const res = await t.call(`/v1/runs/${run.id}${path === '' ? '' : `/${path}`}`, {
        ...json(body, method),
        token,
      });
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { error: unknown }).error, path).toMatchObject({
        code: 'scope_missing',
        field: 'svc:act',
      });
    }
    const after = (await t.get(`/v1/runs/${run.id}`, appA)).body;
    expect(after).toMatchObject({ state: 'queued', title: run.title });
    // Reading stays open to the tree, and a node holding svc:act changes its run.
    expect((await t.get(`/v1/runs/${run.id}`, token)).status).toBe(200);
    const actor = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-node-act' })).token;
    const acting = await start(actor);
    const renamed = await t.post(
      `/v1/runs/${acting.id}/rename`,
      { title: 'renamed by its root' },
      t.nodeToken(acting.node_id),
    );
    expect(renamed.body.title).toBe('renamed by its root');
  });
});

describe('message, reply, interrupt, cancel', () => {
  it('reply is 409 unless the run waits for a message; then it wakes the run', async () => {
    const run = await start(appA);
    const early = await t.post(`/v1/runs/${run.id}/reply`, { text: 'too soon' }, appA);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_state');
    const mail = await t.post(`/v1/runs/${run.id}/messages`, { text: 'any time' }, appA);
    expect(mail.body).toMatchObject({
      seq: 1,
      from: { kind: 'app', id: 'app-a' },
      state: 'pending',
    });
    const interrupted = await t.post(`/v1/runs/${run.id}/interrupt`, { reason: 'hold on' }, appA);
    expect(interrupted.body).toMatchObject({
      state: 'waiting',
      state_reason: 'hold on',
      waiting_on: { for: 'mail' },
    });
    const reply = await t.post(`/v1/runs/${run.id}/reply`, { text: 'go on' }, appA);
    expect(reply.body).toMatchObject({ seq: 2, text: 'go on' });
    expect((await t.get(`/v1/runs/${run.id}`, appA)).body.state).toBe('queued');
  });

  it('cancel cancels the whole tree; the run answers its outcome', async () => {
    const run = await start(appB);
    const child = await t.createNode({ task: 'child' }, t.nodeToken(run.node_id));
    const res = await t.post(`/v1/runs/${run.id}/cancel`, { reason: 'stop' }, appB);
    expect(res.body).toMatchObject({
      state: 'cancelled',
      outcome: { state: 'cancelled', error: { code: 'cancelled', message: 'stop' } },
    });
    expect((await t.get(`/v1/nodes/${child.id}`)).body.state).toBe('cancelled');
    const kinds = (await t.get(`/v1/runs/${run.id}/events?limit=200`, appB)).body.data.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(
      expect.arrayContaining(['run.started', 'run.state', 'run.outcome', 'node.outcome']),
    );
  });
});

describe('rename, trace, delete', () => {
  it('renames with a run.renamed event', async () => {
    const run = await start(appA);
    const res = await t.post(`/v1/runs/${run.id}/rename`, { title: 'better title' }, appA);
    expect(res.body.title).toBe('better title');
    const events = (await t.get(`/v1/runs/${run.id}/events?kinds=run.renamed`, appA)).body.data;
    expect(events).toMatchObject([
      { subject_id: run.id, payload: { run_id: run.id, title: 'better title' } },
    ]);
  });

  it('trace lists the turns of the whole tree in recording order, filterable by node', async () => {
    const run = await start(appB);
    const child = await t.createNode({ task: 'child' }, t.nodeToken(run.node_id));
    t.recordTurn(run.node_id, 1, [{ id: 'c1', name: 'spawn' }]);
    t.recordTurn(child.id, 1);
    t.recordTurn(run.node_id, 2);
    const trace = (await t.get(`/v1/runs/${run.id}/trace`, appB)).body;
    expect(trace.data.map((x: { node_id: string; index: number }) => [x.node_id, x.index])).toEqual(
      [
        [run.node_id, 1],
        [child.id, 1],
        [run.node_id, 2],
      ],
    );
    expect(trace.data[0].tool_calls).toMatchObject([
      { id: 'c1', name: 'spawn', status: 'pending' },
    ]);
    const paged = (await t.get(`/v1/runs/${run.id}/trace?limit=2`, appB)).body;
    expect(paged.has_more).toBe(true);
    const rest = (await t.get(`/v1/runs/${run.id}/trace?after=${paged.next_cursor}`, appB)).body;
    expect(rest.data.map((x: { index: number }) => x.index)).toEqual([2]);
    const onlyChild = (await t.get(`/v1/runs/${run.id}/trace?node_id=${child.id}`, appB)).body;
    expect(onlyChild.data).toHaveLength(1);
  });

  it('delete is 409 while live; once final it removes the tree and its events', async () => {
    const run = await start(appA);
    const live = await t.call(`/v1/runs/${run.id}`, { method: 'DELETE', token: appA });
    expect(live.status).toBe(409);
    await t.post(`/v1/runs/${run.id}/cancel`, {}, appA);
    // Its worktree (made here, whether or not a broker ran it) goes after the commit.
    const worktree = join(t.home, 'worktrees', run.node_id);
    mkdirSync(worktree, { recursive: true });
    const res = await t.call(`/v1/runs/${run.id}`, { method: 'DELETE', token: appA });
    expect(await res.json()).toEqual({ id: run.id, deleted: true });
    expect((await t.get(`/v1/runs/${run.id}`, appA)).status).toBe(404);
    expect((await t.get(`/v1/nodes/${run.node_id}`)).status).toBe(404);
    expect(existsSync(worktree)).toBe(false);
  });

  it("delete takes each node's node:<id> memory documents with the tree, and no others", async () => {
    const run = await start(appB);
    const other = await start(appB);
    const child = await t.createNode({ task: 'child' }, t.nodeToken(run.node_id));
    const put = async (space: string, token: string) => {
      const res = await t.call('/v1/memory/document', {
        ...json({ space, path: 'notes', content: 'x' }, 'PUT'),
        token,
      });
      expect(res.status, space).toBe(200);
    };
    await put(`node:${child.id}`, t.nodeToken(child.id));
    await put(`node:${run.node_id}`, appB);
    await put(`node:${other.node_id}`, appB);
    await t.post(`/v1/runs/${run.id}/cancel`, {}, appB);
    const res = await t.call(`/v1/runs/${run.id}`, { method: 'DELETE', token: appB });
    expect(res.status).toBe(200);
    const doc = (nodeId: string) => t.get(`/v1/memory/document?space=node:${nodeId}&path=notes`);
    expect((await doc(child.id)).status).toBe(404);
    expect((await doc(run.node_id)).status).toBe(404);
    expect((await doc(other.node_id)).status).toBe(200);
  });
});

describe('wait and parse', () => {
  it('wait answers final: false at timeout_s and final: true once the run ends', async () => {
    const run = await start(appA);
    const early = await t.get(`/v1/runs/${run.id}/wait?timeout_s=0`, appA);
    expect(early.body).toMatchObject({ final: false, run: { id: run.id } });
    const waiting = t.get(`/v1/runs/${run.id}/wait?timeout_s=30`, appA);
    await new Promise((r) => setTimeout(r, 100));
    t.broker(run.node_id, 'start');
    await t.post(`/v1/nodes/${run.node_id}/result`, { result: { ok: true } });
    const done = await waiting;
    expect(done.body).toMatchObject({
      final: true,
      run: { state: 'done', outcome: { result: { ok: true } } },
    });
  });

  it('a wait whose token is revoked meanwhile ends with 401 at once, as a stream does', async () => {
    const app = await t.appToken(['svc:llm'], { app_id: 'app-revoked-wait' });
    const run = await start(app.token);
    const began = Date.now();
    const waiting = t.get(`/v1/runs/${run.id}/wait?timeout_s=30`, app.token);
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.call(`/v1/tokens/${app.token_id}`, { method: 'DELETE' })).status).toBe(200);
    const ended = await waiting;
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe('unauthorized');
    expect(Date.now() - began).toBeLessThan(10_000);
  });

  it('parse starts a run with an output_schema and answers final: false with parsed null', async () => {
    const res = await t.post(
      '/v1/runs/parse',
      { task: 'x', model: SCRIPTED, output_schema: { type: 'object' }, timeout_s: 0 },
      appA,
    );
    expect(res.body).toMatchObject({ final: false, parsed: null, run: { state: 'queued' } });
  });
});
