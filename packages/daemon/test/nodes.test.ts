import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { json } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
let appA: string;
let appB: string;
beforeAll(async () => {
  t = await startNodesDaemon();
  appA = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-a' })).token;
  appB = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-b' })).token;
});
afterAll(() => t.stop());

describe('nodes.create', () => {
  it('answers a queued node with defaults filled in and one create event', async () => {
    const node = await t.createNode({ task: 'Summarize the repo\nin detail' });
    expect(node).toMatchObject({
      state: 'queued',
      parent_id: null,
      root_id: node.id,
      run_id: null,
      app_id: null,
      profile: 'default',
      title: 'Summarize the repo',
      scopes: null,
      model: { provider: 'scripted', model: 'replay' },
      budgets: { max_turns: 100, max_tokens: null, max_cost_usd: null },
      usage: { turns: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 },
      outcome: null,
      waiting_on: null,
    });
    expect(node.id).toMatch(/^nd_/);
    const events = (await t.get(`/v1/nodes/${node.id}/events`)).body.data;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'node.state',
      subject_id: node.id,
      payload: { node_id: node.id, from: null, to: 'queued', action: 'create', reason: null },
    });
  });

  it('the queue length in /v1/status follows creates and cancels (its count is never stale)', async () => {
    const queued = async () =>
      ((await t.get('/v1/status')).body as { brokers: { queued: number } }).brokers.queued;
    const before = await queued();
    expect(await queued()).toBe(before); // a second read, from the kept count
    const node = await t.createNode({ task: 'waits in the queue' });
    expect(await queued()).toBe(before + 1);
    await t.post(`/v1/nodes/${node.id}/cancel`, { reason: 'no longer needed' });
    expect(await queued()).toBe(before);
  });

  it('refuses a node without any model: 400 naming model', async () => {
    const res = await t.post('/v1/nodes', { task: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'model' });
  });

  it('refuses an output_schema that cannot run: 400 naming output_schema', async () => {
    const res = await t.post('/v1/nodes', {
      task: 'x',
      model: SCRIPTED,
      output_schema: { $ref: '#/nowhere' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'output_schema' });
    // Found where a result would only reach them: before, the node was made and every submit
    // failed with a 500, or refused every result.
    const deep = [
      [
        { properties: { a: { $ref: '#/$defs/nope' } } },
        /properties\.a\.\$ref "#\/\$defs\/nope" resolves to nothing/,
      ],
      [{ properties: { a: { pattern: '(' } } }, /properties\.a: "\(" is not a regular expression/],
      [{ type: 'text' }, /^output_schema\.type "text" is not a JSON Schema type$/],
      // wrong shapes and a reference to itself: every submit answered 500 before
      [{ $ref: '#' }, /^output_schema is not a usable JSON Schema: /],
      [{ enum: 5 }, /^output_schema\.enum must be a non-empty array$/],
      [{ oneOf: {} }, /^output_schema\.oneOf must be a non-empty array of schemas$/],
      // a keyword the validator would apply as nobody meant: `required: "id"` requires "i", "d"
      [{ required: 'id' }, /^output_schema\.required must be an array of distinct property names$/],
      [{ multipleOf: 0 }, /^output_schema\.multipleOf must be a number above 0$/],
      [
        { $id: 'https://x.test/a', properties: { b: { $id: 'https://x.test/a' } } },
        /^output_schema is not a usable JSON Schema: Duplicate schema URI "https:\/\/x\.test\/a"\.$/,
      ],
    ] as const;
    for (const [output_schema, message] of deep) {
      const refused = await t.post('/v1/nodes', { task: 'x', model: SCRIPTED, output_schema });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', field: 'output_schema' });
      expect(refused.body.error.message).toMatch(message);
    }
  });

  it('an unknown named profile is 404 naming profile', async () => {
    const res = await t.post('/v1/nodes', { task: 'x', model: SCRIPTED, profile: 'nope' });
    expect(res.status).toBe(404);
    expect(res.body.error.field).toBe('profile');
  });
});

describe('scopes of a new node', () => {
  it('omitted: inherits the creator ceiling (the app token list; the owner: null)', async () => {
    const node = await t.createNode({ task: 'a' }, appA);
    expect(node.scopes).toEqual(['svc:llm', 'svc:act']);
    expect(node.app_id).toBe('app-a');
    expect((await t.createNode({ task: 'o' })).scopes).toBeNull();
  });

  it('supplied: narrows inside the ceiling', async () => {
    const node = await t.createNode({ task: 'a', scopes: ['svc:llm'] }, appA);
    expect(node.scopes).toEqual(['svc:llm']);
  });

  it('wider than an app ceiling: 403 scope_missing naming the scope and the ceiling', async () => {
    const res = await t.post(
      '/v1/nodes',
      { task: 'a', model: SCRIPTED, scopes: ['svc:llm', 'svc:act', 'svc:schedule'] },
      appA,
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:schedule',
      received: ['svc:llm', 'svc:act'],
    });
  });

  it('a node spawning a child: the child inherits its list and cannot widen it', async () => {
    const parent = await t.createNode({ task: 'p', scopes: ['svc:llm', 'svc:act'] });
    const token = t.nodeToken(parent.id);
    const child = await t.createNode({ task: 'c' }, token);
    expect(child).toMatchObject({
      parent_id: parent.id,
      root_id: parent.id,
      scopes: ['svc:llm', 'svc:act'],
    });
    const wider = await t.post(
      '/v1/nodes',
      { task: 'c', model: SCRIPTED, scopes: ['svc:llm', 'svc:act', 'svc:schedule'] },
      token,
    );
    expect(wider.status).toBe(403);
    expect(wider.body.error.code).toBe('scope_missing');
  });

  it("a node of the owner (no list) keeps the owner's vocabulary for its children", async () => {
    const parent = await t.createNode({ task: 'p' });
    expect(parent.scopes).toBeNull();
    const token = t.nodeToken(parent.id);
    expect((await t.createNode({ task: 'c' }, token)).scopes).toBeNull();
    const wide = await t.createNode(
      { task: 'c', scopes: ['svc:llm', 'svc:act', 'svc:schedule'] },
      token,
    );
    expect(wide.scopes).toEqual(['svc:llm', 'svc:act', 'svc:schedule']);
  });

  it('legacy short names are 400 invalid_request', async () => {
    const res = await t.post('/v1/nodes', { task: 'a', model: SCRIPTED, scopes: ['act'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('an app without svc:act cannot create nodes at all', async () => {
    const llmOnly = (await t.appToken(['svc:llm'], { app_id: 'app-c' })).token;
    const res = await t.post('/v1/nodes', { task: 'a', model: SCRIPTED }, llmOnly);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('scope_missing');
  });
});

describe('visibility', () => {
  it("an app sees its own nodes and their trees; another app's answer 404", async () => {
    const mine = await t.createNode({ task: 'mine' }, appA);
    const child = await t.createNode({ task: 'child' }, t.nodeToken(mine.id));
    expect((await t.get(`/v1/nodes/${mine.id}`, appA)).status).toBe(200);
    expect((await t.get(`/v1/nodes/${child.id}`, appA)).status).toBe(200);
    for (const path of [
      `/v1/nodes/${mine.id}`,
      `/v1/nodes/${mine.id}/events`,
      `/v1/nodes/${mine.id}/reports`,
      `/v1/nodes/${mine.id}/stream`,
    ]) {
      const res = await t.get(path, appB);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await t.post(`/v1/nodes/${mine.id}/cancel`, {}, appB)).status).toBe(404);
    expect((await t.post(`/v1/nodes/${mine.id}/messages`, { text: 'x' }, appB)).status).toBe(404);
    const listB = (await t.get('/v1/nodes?limit=200', appB)).body.data as Node[];
    expect(listB.map((n) => n.id)).not.toContain(mine.id);
    const listA = (await t.get('/v1/nodes?limit=200', appA)).body.data as Node[];
    expect(listA.map((n) => n.id)).toEqual(expect.arrayContaining([mine.id, child.id]));
    expect(listA.every((n) => n.app_id === 'app-a')).toBe(true);
  });

  it('a node token sees its own tree only', async () => {
    const a = await t.createNode({ task: 'a' });
    const b = await t.createNode({ task: 'b' });
    const token = t.nodeToken(a.id);
    expect((await t.get(`/v1/nodes/${a.id}`, token)).status).toBe(200);
    expect((await t.get(`/v1/nodes/${b.id}`, token)).status).toBe(404);
  });

  it("a node token may not call another node's node-only routes", async () => {
    const a = await t.createNode({ task: 'a' });
    const b = await t.createNode({ task: 'b' });
    t.broker(b.id, 'start');
    const res = await t.post(`/v1/nodes/${b.id}/yield`, {}, t.nodeToken(a.id));
    expect(res.status).toBe(403);
    expect((await t.post(`/v1/nodes/${b.id}/yield`, {})).status).toBe(403); // the owner is not a node
  });
});

describe('lists', () => {
  it('filters by state, parent and root, newest first, with a cursor', async () => {
    const root = await t.createNode({ task: 'root' });
    const token = t.nodeToken(root.id);
    const kids = [];
    for (let i = 0; i < 3; i++) kids.push(await t.createNode({ task: `kid ${i}` }, token));
    await t.post(`/v1/nodes/${kids[0]!.id}/cancel`);
    const children = (await t.get(`/v1/nodes?parent_id=${root.id}`)).body;
    expect(children.data.map((n: Node) => n.id)).toEqual(kids.map((k) => k.id).reverse());
    const first = (await t.get(`/v1/nodes?root_id=${root.id}&limit=2`)).body;
    expect(first.has_more).toBe(true);
    const second = (await t.get(`/v1/nodes?root_id=${root.id}&limit=2&after=${first.next_cursor}`))
      .body;
    expect([...first.data, ...second.data].map((n: Node) => n.id)).toEqual(
      [root, ...kids].map((k) => k.id).reverse(),
    );
    const cancelled = (await t.get(`/v1/nodes?root_id=${root.id}&state=cancelled`)).body.data;
    expect(cancelled.map((n: Node) => n.id)).toEqual([kids[0]!.id]);
    // A cursor that is no id would read as the end of the list: refused instead.
    for (const path of ['/v1/nodes?after=garbage', '/v1/runs?after=garbage']) {
      const bad = await t.get(path);
      expect(bad.status, path).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'validation_failed', field: 'after' });
    }
    const roots = (await t.get('/v1/nodes?parent_id=none&limit=200')).body.data as Node[];
    expect(roots.every((n) => n.parent_id === null)).toBe(true);
    expect((await t.get('/v1/nodes?state=sleeping')).status).toBe(422);
  });
});

describe('cancel', () => {
  it('cascades to every descendant not final, except promoted ones', async () => {
    const root = await t.createNode({ task: 'root' });
    const child = await t.createNode({ task: 'child' }, t.nodeToken(root.id));
    const grandchild = await t.createNode({ task: 'grandchild' }, t.nodeToken(child.id));
    const promoted = await t.createNode({ task: 'promoted' }, t.nodeToken(root.id));
    const finished = await t.createNode({ task: 'finished' }, t.nodeToken(root.id));
    t.broker(finished.id, 'start');
    await t.post(`/v1/nodes/${finished.id}/result`, { summary: 'ok' });
    const p = await t.post(`/v1/nodes/${promoted.id}/promote`);
    expect(p.body).toMatchObject({ parent_id: null, root_id: promoted.id });

    const res = await t.post(`/v1/nodes/${root.id}/cancel`, { reason: 'enough' });
    expect(res.body).toMatchObject({
      state: 'cancelled',
      state_reason: 'enough',
      outcome: { state: 'cancelled', error: { code: 'cancelled', message: 'enough' } },
    });
    const state = async (id: string) => ((await t.get(`/v1/nodes/${id}`)).body as Node).state;
    expect(await state(child.id)).toBe('cancelled');
    expect(await state(grandchild.id)).toBe('cancelled');
    expect(await state(promoted.id)).toBe('queued');
    expect(await state(finished.id)).toBe('done');
    const sub = (await t.get(`/v1/nodes/${root.id}/events?subtree=true&kinds=node.state`)).body;
    const cancels = sub.data.filter(
      (e: { payload: { action: string } }) => e.payload.action === 'cancel',
    );
    expect(cancels.map((e: { subject_id: string }) => e.subject_id).sort()).toEqual(
      [root.id, child.id, grandchild.id].sort(),
    );
  });
});

describe('mail, yield and wait', () => {
  it('message to a waiting node queues it; the broker claims and acknowledges mail once', async () => {
    const node = await t.createNode({ task: 'talk' });
    t.broker(node.id, 'start');
    const token = t.nodeToken(node.id);
    const parked = await t.post(`/v1/nodes/${node.id}/yield`, { reason: 'need input' }, token);
    expect(parked.body).toMatchObject({
      state: 'waiting',
      state_reason: 'need input',
      waiting_on: { for: 'mail' },
    });
    const mail = await t.post(`/v1/nodes/${node.id}/messages`, { text: 'here you go' });
    expect(mail.body).toMatchObject({
      seq: 1,
      node_id: node.id,
      from: { kind: 'owner', id: null },
      text: 'here you go',
      state: 'pending',
    });
    expect(((await t.get(`/v1/nodes/${node.id}`)).body as Node).state).toBe('queued');

    const claim1 = await t.post(`/v1/nodes/${node.id}/mail/claim`, {}, token);
    expect(claim1.body.data).toMatchObject([{ seq: 1, state: 'claimed' }]);
    // Never acknowledged (the broker died): the next broker claims it again.
    const claim2 = await t.post(`/v1/nodes/${node.id}/mail/claim`, {}, token);
    expect(claim2.body.data.map((m: { seq: number }) => m.seq)).toEqual([1]);
    const ack = await t.post(`/v1/nodes/${node.id}/mail/acknowledge`, { seqs: [1, 7] }, token);
    expect(ack.body).toEqual({ acknowledged: 1 });
    expect((await t.post(`/v1/nodes/${node.id}/mail/claim`, {}, token)).body.data).toEqual([]);
    expect(
      (await t.post(`/v1/nodes/${node.id}/mail/acknowledge`, { seqs: [1] }, token)).body,
    ).toEqual({ acknowledged: 0 });
  });

  it('yield with mail already waiting queues the node again at once', async () => {
    const node = await t.createNode({ task: 'busy' });
    t.broker(node.id, 'start');
    await t.post(`/v1/nodes/${node.id}/messages`, { text: 'early' });
    const res = await t.post(`/v1/nodes/${node.id}/yield`, {}, t.nodeToken(node.id));
    expect(res.body.state).toBe('queued');
  });

  it('waiting for children wakes when they are final; a wait that already holds changes nothing', async () => {
    const parent = await t.createNode({ task: 'parent' });
    t.broker(parent.id, 'start');
    const token = t.nodeToken(parent.id);
    const a = await t.createNode({ task: 'a' }, token);
    const b = await t.createNode({ task: 'b' }, token);
    const waiting = await t.post(`/v1/nodes/${parent.id}/wait`, { for: 'children' }, token);
    expect(waiting.body).toMatchObject({
      state: 'waiting',
      waiting_on: { for: 'children', node_ids: [a.id, b.id], mode: 'all' },
    });
    await t.post(`/v1/nodes/${a.id}/cancel`);
    expect(((await t.get(`/v1/nodes/${parent.id}`)).body as Node).state).toBe('waiting');
    t.broker(b.id, 'start');
    await t.post(`/v1/nodes/${b.id}/result`, { summary: 'b done' });
    expect(((await t.get(`/v1/nodes/${parent.id}`)).body as Node).state).toBe('queued');

    t.broker(parent.id, 'start');
    const again = await t.post(
      `/v1/nodes/${parent.id}/wait`,
      { for: 'children', node_ids: [a.id] },
      token,
    );
    expect(again.body.state).toBe('running');
    const stranger = await t.createNode({ task: 'stranger' });
    const bad = await t.post(
      `/v1/nodes/${parent.id}/wait`,
      { for: 'children', node_ids: [stranger.id] },
      token,
    );
    expect(bad.status).toBe(400);
  });

  it('a timer wait wakes the node when it passes', async () => {
    const node = await t.createNode({ task: 'sleep' });
    t.broker(node.id, 'start');
    const res = await t.post(
      `/v1/nodes/${node.id}/wait`,
      { for: 'timer', seconds: 1 },
      t.nodeToken(node.id),
    );
    expect(res.body.waiting_on.for).toBe('timer');
    const woke = await t.get(`/v1/nodes/${node.id}/outcome/wait?timeout_s=0`);
    expect(woke.body.node.state).toBe('waiting');
    for (let i = 0; i < 40; i++) {
      if (((await t.get(`/v1/nodes/${node.id}`)).body as Node).state === 'queued') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(((await t.get(`/v1/nodes/${node.id}`)).body as Node).state).toBe('queued');
  });

  it("a timer wait past 24.8 days (a Node timer's limit) does not wake at once", async () => {
    const node = await t.createNode({ task: 'sleep a month' });
    t.broker(node.id, 'start');
    const res = await t.post(
      `/v1/nodes/${node.id}/wait`,
      { for: 'timer', seconds: 30 * 24 * 3600 },
      t.nodeToken(node.id),
    );
    expect(res.body.waiting_on.for).toBe('timer');
    await new Promise((r) => setTimeout(r, 300)); // an overflowed timer fires after 1 ms
    expect(((await t.get(`/v1/nodes/${node.id}`)).body as Node).state).toBe('waiting');
  });
});

describe('outcome', () => {
  it('is 409 while not final; the result is checked against output_schema (422)', async () => {
    const node = await t.createNode({
      task: 'count',
      output_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    });
    const early = await t.get(`/v1/nodes/${node.id}/outcome`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_state');
    t.broker(node.id, 'start');
    const bad = await t.post(`/v1/nodes/${node.id}/result`, { result: { n: 'three' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', field: 'result.n' });
    expect(bad.body.error.message).toBe(
      'the result does not match output_schema at /n: Instance type "string" is invalid. Expected "integer".',
    );
    const empty = await t.post(`/v1/nodes/${node.id}/result`, { result: {} });
    expect(empty.status).toBe(422);
    // a missing property is named itself, as the plugin kit names one in a command's input
    expect(empty.body.error).toMatchObject({ code: 'validation_failed', field: 'result.n' });
    const scalar = await t.post(`/v1/nodes/${node.id}/result`, { result: 3 });
    // a failure at the root names the result itself
    expect(scalar.body.error).toMatchObject({ code: 'validation_failed', field: 'result' });
    const none = await t.post(`/v1/nodes/${node.id}/result`, { summary: 'no result' });
    expect(none.status).toBe(422);
    const ok = await t.post(`/v1/nodes/${node.id}/result`, { result: { n: 3 }, summary: 'three' });
    expect(ok.body).toMatchObject({ state: 'done', outcome: { state: 'done', result: { n: 3 } } });
    const outcome = await t.get(`/v1/nodes/${node.id}/outcome`);
    expect(outcome.body).toMatchObject({
      state: 'done',
      result: { n: 3 },
      summary: 'three',
      error: null,
    });
  });

  it('waitForOutcome long-polls until final, or answers final: false at timeout_s', async () => {
    const node = await t.createNode({ task: 'slow' });
    const timedOut = await t.get(`/v1/nodes/${node.id}/outcome/wait?timeout_s=1`);
    expect(timedOut.body).toMatchObject({ final: false, node: { id: node.id, state: 'queued' } });
    const waiting = t.get(`/v1/nodes/${node.id}/outcome/wait?timeout_s=30`);
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await t.post(`/v1/nodes/${node.id}/cancel`, { reason: 'stop' });
    const done = await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(done.body).toMatchObject({ final: true, node: { state: 'cancelled' } });
  });

  it('a long poll stops waiting once its client goes away', async () => {
    const node = await t.createNode({ task: 'nobody waits for this' });
    const requestId = 'gone-client-1';
    const req = request({
      socketPath: t.daemon.socketPath,
      path: `/v1/nodes/${node.id}/outcome/wait?timeout_s=30`,
      headers: { authorization: `Bearer ${t.ownerToken}`, 'svc-request-id': requestId },
    });
    req.on('error', () => {});
    req.end();
    await new Promise((r) => setTimeout(r, 300));
    req.destroy();
    // The wait ends within a tick of the disconnect (not after timeout_s), and its request line
    // reaches the log (flushed within 100 ms).
    const log = join(t.home, 'logs', 'daemon.log');
    const deadline = Date.now() + 5_000;
    while (!readFileSync(log, 'utf8').includes(`"request_id":"${requestId}"`)) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it("a node that leaves the waiter's view mid-wait: the waiter gets 404, the mover 200", async () => {
    const root = await t.createNode({ task: 'root' });
    const token = t.nodeToken(root.id);
    const child = await t.createNode({ task: 'child' }, token);
    const waiting = t.get(`/v1/nodes/${child.id}/outcome/wait?timeout_s=30`, token);
    await new Promise((r) => setTimeout(r, 100));
    const promoted = await t.post(`/v1/nodes/${child.id}/promote`);
    expect(promoted.status).toBe(200);
    const answer = await waiting;
    expect(answer.status).toBe(404);
  });

  it('createAndWait and parse answer final: false at the timeout, with the node id', async () => {
    const res = await t.post('/v1/nodes/create-and-wait', {
      task: 'x',
      model: SCRIPTED,
      timeout_s: 0,
    });
    expect(res.body).toMatchObject({ final: false, node: { state: 'queued' } });
    const parsed = await t.post('/v1/nodes/parse', {
      task: 'x',
      model: SCRIPTED,
      output_schema: { type: 'object' },
      timeout_s: 0,
    });
    expect(parsed.body).toMatchObject({ final: false, parsed: null, node: { state: 'queued' } });
  });

  it('createAndWait with an Idempotency-Key answers the same node when retried', async () => {
    const body = { task: 'once', model: SCRIPTED, timeout_s: 0 };
    const headers = { 'idempotency-key': 'create-and-wait-1' };
    const first = await t.call('/v1/nodes/create-and-wait', json(body, 'POST', headers));
    const second = await t.call('/v1/nodes/create-and-wait', json(body, 'POST', headers));
    const [a, b] = [
      (await first.json()) as { node: Node },
      (await second.json()) as { node: Node },
    ];
    expect(b.node.id).toBe(a.node.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('tree operations', () => {
  it('fork copies turns through through_turn into a new queued node; the source is untouched', async () => {
    const source = await t.createNode({ task: 'original' });
    t.broker(source.id, 'start');
    t.recordTurn(source.id, 1, [{ id: 'call-1', name: 'bash' }]);
    t.recordTurn(source.id, 2);
    const fork = await t.post(`/v1/nodes/${source.id}/fork`, {
      through_turn: 1,
      task: 'try another way',
      scopes: ['svc:llm'],
    });
    expect(fork.status).toBe(200);
    expect(fork.body).toMatchObject({ state: 'queued', task: 'original', scopes: ['svc:llm'] });
    expect(fork.body.id).not.toBe(source.id);
    expect(((await t.get(`/v1/nodes/${source.id}`)).body as Node).state).toBe('running');
    const forkToken = t.nodeToken(fork.body.id);
    const mail = await t.post(`/v1/nodes/${fork.body.id}/mail/claim`, {}, forkToken);
    expect(mail.body.data.map((m: { text: string }) => m.text)).toEqual(['try another way']);
    const created = (await t.get(`/v1/nodes/${fork.body.id}/events`)).body.data[0];
    expect(created.payload).toMatchObject({ from: null, to: 'queued', action: 'fork' });
  });

  it('demote refuses itself or a descendant (409 conflict); promote detaches a subtree', async () => {
    const root = await t.createNode({ task: 'root' });
    const child = await t.createNode({ task: 'child' }, t.nodeToken(root.id));
    const grandchild = await t.createNode({ task: 'gc' }, t.nodeToken(child.id));
    for (const parent of [root.id, grandchild.id]) {
      const res = await t.post(`/v1/nodes/${root.id}/demote`, { parent_id: parent });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    }
    await t.post(`/v1/nodes/${child.id}/promote`);
    expect(((await t.get(`/v1/nodes/${grandchild.id}`)).body as Node).root_id).toBe(child.id);
    const other = await t.createNode({ task: 'other' });
    const demoted = await t.post(`/v1/nodes/${child.id}/demote`, { parent_id: other.id });
    expect(demoted.body).toMatchObject({ parent_id: other.id, root_id: other.id });
    expect(((await t.get(`/v1/nodes/${grandchild.id}`)).body as Node).root_id).toBe(other.id);
  });

  it('recycle keeps identity and history, resets usage, delivers the new task as mail', async () => {
    const node = await t.createNode({ task: 'first task' });
    t.broker(node.id, 'start');
    await t.post(`/v1/nodes/${node.id}/result`, { summary: 'done' });
    const res = await t.post(`/v1/nodes/${node.id}/recycle`, { task: 'second task' });
    expect(res.body).toMatchObject({
      id: node.id,
      state: 'queued',
      task: 'second task',
      title: 'second task',
      outcome: null,
      usage: { turns: 0 },
    });
    const mail = await t.post(`/v1/nodes/${node.id}/mail/claim`, {}, t.nodeToken(node.id));
    expect(mail.body.data.map((m: { text: string }) => m.text)).toEqual(['second task']);
  });

  it('a narrower token of the same app gives no new work to a node that holds more than it', async () => {
    const wide = ['svc:llm', 'svc:act', 'svc:files:rw:user:/'];
    const full = (await t.appToken(wide, { app_id: 'app-ceiling' })).token;
    const narrow = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-ceiling' })).token;
    const done = await t.createNode({ task: 'wide', scopes: wide }, full);
    t.broker(done.id, 'start');
    await t.post(`/v1/nodes/${done.id}/result`, { summary: 'done' });
    const recycled = await t.post(`/v1/nodes/${done.id}/recycle`, { task: 'read it all' }, narrow);
    expect(recycled.status).toBe(403);
    expect(recycled.body.error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:files:rw:user:/',
      received: ['svc:llm', 'svc:act'],
    });
    expect((await t.get(`/v1/nodes/${done.id}`)).body).toMatchObject({
      state: 'done',
      task: 'wide',
    });

    const cancelled = await t.createNode({ task: 'wide too', scopes: wide }, full);
    await t.post(`/v1/nodes/${cancelled.id}/cancel`, { reason: 'later' });
    const orders = await t.post(
      `/v1/nodes/${cancelled.id}/revive`,
      { message: 'new orders' },
      narrow,
    );
    expect(orders.status).toBe(403);
    expect(orders.body.error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:files:rw:user:/',
    });
    expect((await t.get(`/v1/nodes/${cancelled.id}`)).body.state).toBe('cancelled');
    // Reviving it to go on with the task it was given asks nothing new of it.
    expect((await t.post(`/v1/nodes/${cancelled.id}/revive`, {}, narrow)).status).toBe(200);

    const forked = await t.post(`/v1/nodes/${done.id}/fork`, {}, narrow);
    expect(forked.status).toBe(403);
    expect(forked.body.error.message).toContain("outside the creator's ceiling");
    // Mail steers too: from an app's token, only from one that could have made the node.
    const queued = await t.createNode({ task: 'wide, waiting its turn', scopes: wide }, full);
    const mailed = await t.post(`/v1/nodes/${queued.id}/messages`, { text: 'new orders' }, narrow);
    expect(mailed.status).toBe(403);
    expect(mailed.body.error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:files:rw:user:/',
    });
    expect((await t.post(`/v1/nodes/${queued.id}/messages`, { text: 'hi' }, full)).status).toBe(
      200,
    );
    // The token that could have made it may.
    expect((await t.post(`/v1/nodes/${done.id}/recycle`, { task: 'again' }, full)).status).toBe(
      200,
    );
  });

  it('reviveAll revives failed nodes only by default; cancelled ones when asked', async () => {
    const root = await t.createNode({ task: 'r' });
    const failed = await t.createNode({ task: 'f' }, t.nodeToken(root.id));
    const cancelled = await t.createNode({ task: 'c' }, t.nodeToken(root.id));
    t.broker(failed.id, 'fail', 'crash');
    await t.post(`/v1/nodes/${cancelled.id}/cancel`);
    const first = await t.post('/v1/nodes/revive-all', { root_id: root.id });
    expect(first.body).toEqual({ count: 1, node_ids: [failed.id] });
    const second = await t.post('/v1/nodes/revive-all', {
      root_id: root.id,
      states: ['failed', 'cancelled'],
    });
    expect(second.body).toEqual({ count: 1, node_ids: [cancelled.id] });
    expect((await t.post('/v1/nodes/revive-all', {}, appA)).status).toBe(403);
  });
});

describe('updates and budgets', () => {
  it('changes title and labels with one node.updated event; an empty body is 422', async () => {
    const node = await t.createNode({ task: 'long' });
    const res = await t.call(
      `/v1/nodes/${node.id}`,
      json({ title: 'renamed', metadata: { team: 'x' } }, 'PATCH'),
    );
    expect(await res.json()).toMatchObject({ title: 'renamed', metadata: { team: 'x' } });
    const updated = (await t.get(`/v1/nodes/${node.id}/events?kinds=node.updated`)).body.data;
    expect(updated).toMatchObject([
      { payload: { node_id: node.id, changes: { title: 'renamed', metadata: { team: 'x' } } } },
    ]);
    expect((await t.call(`/v1/nodes/${node.id}`, json({}, 'PATCH'))).status).toBe(422);
  });

  it('raising the budget a node is parked at wakes it; another change does not', async () => {
    const node = await t.createNode({ task: 'long', budgets: { max_turns: 1 } });
    t.broker(node.id, 'start');
    t.broker(node.id, 'budget_exhausted', 'budget reached', { for: 'budget', budget: 'max_turns' });
    const patch = (body: unknown) => t.call(`/v1/nodes/${node.id}`, json(body, 'PATCH'));
    expect(((await (await patch({ title: 'still parked' })).json()) as Node).state).toBe('waiting');
    const raised = (await (await patch({ budgets: { max_turns: 5 } })).json()) as Node;
    expect(raised).toMatchObject({
      state: 'queued',
      budgets: { max_turns: 5, max_tokens: null, max_cost_usd: null },
      waiting_on: null,
    });
  });
});

describe('reports and jobs', () => {
  it('list reports oldest first and jobs newest first; cancelling a job of a parked node settles it', async () => {
    const node = await t.createNode({ task: 'work' });
    expect((await t.get(`/v1/nodes/${node.id}/reports`)).body).toEqual({
      data: [],
      has_more: false,
      next_cursor: null,
    });
    expect((await t.get(`/v1/nodes/${node.id}/reports?after=abc`)).status).toBe(400);
    const missing = await t.post(`/v1/nodes/${node.id}/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe('job_id');
  });
});

describe('attach', () => {
  it('answers 409 while the node has no live broker', async () => {
    const node = await t.createNode({ task: 'a' });
    const res = await t.post(`/v1/nodes/${node.id}/attach`);
    expect(res.status).toBe(409);
  });
});
