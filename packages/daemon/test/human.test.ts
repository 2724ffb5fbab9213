/**
 * Human requests and the inbox over the daemon's socket: the routes, the answer's checks, every
 * refused transition, who sees and may do what, supersession, expiry, events, and a node parked on
 * its request woken by the answer's mail. A second connection to the database reads events and
 * moves expiry times into the past.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/index.ts';
import { envelope, json } from './helpers.ts';
import { type Answer, type NodesDaemon, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
let side: Store;
let asker: string;
let otherApp: string;
let reader: string;
beforeAll(async () => {
  t = await startNodesDaemon();
  side = openStore(join(t.home, 'svc.db'));
  asker = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-a' })).token;
  otherApp = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-b' })).token;
  reader = (await t.appToken(['svc:llm'], { app_id: 'app-a' })).token;
});
afterAll(async () => {
  side.db.close();
  await t.stop();
});

const ask = async (body: Record<string, unknown> = {}, token?: string) => {
  const res = await t.post('/v1/human/requests', { title: 'Ship it?', ...body }, token);
  if (res.status !== 200)
    throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};

const put = async (path: string, body: unknown, token?: string): Promise<Answer> => {
  const res = await t.call(path, { ...json(body, 'PUT'), ...(token !== undefined && { token }) });
  return { status: res.status, body: await res.json() };
};

const humanEvents = (requestId: string) =>
  side.events
    .list({ after: 0, limit: 10_000, kinds: ['human.request'] })
    .filter((e) => e.subject === requestId)
    .map((e) => JSON.parse(e.payload));

const expectState = (answer: Answer, state: string) => {
  expect(answer.status).toBe(409);
  expect(answer.body.error.code).toBe('invalid_state');
  expect(answer.body.error.message).toContain(`'${state}'`);
};

describe('human requests', () => {
  it('creates with defaults and one open ticket; retrieves it; records the event', async () => {
    const request = await ask({ body: 'the **release** notes' });
    expect(request).toMatchObject({
      kind: 'question',
      title: 'Ship it?',
      body: 'the **release** notes',
      options: [],
      response_schema: null,
      state: 'open',
      response: null,
      node_id: null,
      app_id: null,
      expires_at: null,
    });
    expect(request.id).toMatch(/^hr_[0-9A-Z]{26}$/);
    expect(request.ticket_id).toMatch(/^tk_[0-9A-Z]{26}$/);
    expect((await t.get(`/v1/human/requests/${request.id}`)).body).toEqual(request);
    const ticket = (await t.get(`/v1/human/inbox/${request.ticket_id}`)).body;
    expect(ticket).toMatchObject({
      id: request.ticket_id,
      requestId: request.id,
      responseSchema: null,
      state: 'open',
      progressNote: null,
      asker: { nodeId: null, appId: null },
      createdAt: request.created_at,
    });
    expect(humanEvents(request.id)).toEqual([
      { request_id: request.id, ticket_id: request.ticket_id, state: 'open', action: 'created' },
    ]);
  });

  it('an approval offers approve and reject, and takes no other options', async () => {
    const approval = await ask({ kind: 'approval' });
    expect(approval.options).toEqual(['approve', 'reject']);
    const odd = await t.post('/v1/human/requests', {
      title: 'x',
      kind: 'approval',
      options: ['ok'],
    });
    expect(odd.status).toBe(422);
    expect(odd.body.error.field).toBe('options');
    const dup = await t.post('/v1/human/requests', { title: 'x', options: ['a', 'a'] });
    expect(dup.body.error).toMatchObject({ code: 'validation_failed', field: 'options' });
    const schema = await t.post('/v1/human/requests', {
      title: 'x',
      response_schema: { type: 'object', properties: { n: { $ref: '#/nowhere' } } },
    });
    expect(schema.status).toBe(400);
    expect(schema.body.error.field).toBe('response_schema');
  });

  it('respond answers the request and its ticket; a second answer is 409 naming the state', async () => {
    const request = await ask({ options: ['blue', 'green'] });
    const answered = await t.post(`/v1/human/requests/${request.id}/respond`, {
      choice: 'green',
      text: 'green, please',
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      state: 'answered',
      response: { choice: 'green', text: 'green, please', data: null },
    });
    const ticket = (await t.get(`/v1/human/inbox/${request.ticket_id}`)).body;
    expect(ticket.state).toBe('answered');
    const response = await t.get(`/v1/human/inbox/${request.ticket_id}/response`);
    // The inbox's camelCase (SPEC resource map note 4); the request's stays snake_case.
    const { responded_at, ...rest } = answered.body.response;
    expect(response.body).toEqual({ ...rest, respondedAt: responded_at });
    expectState(
      await t.post(`/v1/human/requests/${request.id}/respond`, { text: 'again' }),
      'answered',
    );
    expectState(
      await t.post(`/v1/human/inbox/${request.ticket_id}/respond`, { text: 'again' }),
      'answered',
    );
    expectState(await put(`/v1/human/requests/${request.id}`, { title: 'new' }), 'answered');
    expectState(await t.post(`/v1/human/requests/${request.id}/dismiss`), 'answered');
    expectState(await t.post(`/v1/human/requests/${request.id}/cancel`), 'answered');
    expectState(await t.post(`/v1/human/inbox/${request.ticket_id}/progress`), 'answered');
    expectState(await t.post(`/v1/human/inbox/${request.ticket_id}/cancel`), 'answered');
  });

  it('checks the answer: choice among the options, data against response_schema (422 naming the field)', async () => {
    const pick = await ask({ options: ['yes', 'no'] });
    const wrong = await t.post(`/v1/human/requests/${pick.id}/respond`, { choice: 'maybe' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({ code: 'validation_failed', field: 'choice' });
    const approval = await ask({ kind: 'approval' });
    const bare = await t.post(`/v1/human/requests/${approval.id}/respond`, { text: 'fine' });
    expect(bare.body.error.field).toBe('choice');
    const empty = await t.post(`/v1/human/requests/${pick.id}/respond`, {});
    expect(empty.body.error).toMatchObject({ code: 'validation_failed', field: 'text' });
    // null data reads as none in the answer: alone it is no answer either
    const nothing = await t.post(`/v1/human/requests/${pick.id}/respond`, { data: null });
    expect(nothing.body.error).toMatchObject({ code: 'validation_failed', field: 'text' });

    const structured = await ask({
      response_schema: {
        type: 'object',
        properties: { count: { type: 'integer' } },
        required: ['count'],
      },
    });
    const url = `/v1/human/requests/${structured.id}/respond`;
    expect((await t.post(url, { text: 'three' })).body.error.field).toBe('data');
    const bad = await t.post(url, { data: { count: 'three' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', field: 'data.count' });
    // Nothing was answered by the refusals.
    expect((await t.get(`/v1/human/requests/${structured.id}`)).body.state).toBe('open');
    const good = await t.post(url, { data: { count: 3 } });
    expect(good.body.response).toMatchObject({ data: { count: 3 }, text: null, choice: null });
  });

  it('replace supersedes the open ticket with a new one under the same request id', async () => {
    const request = await ask({ options: ['a', 'b'] });
    const replaced = await put(`/v1/human/requests/${request.id}`, {
      title: 'Ship it today?',
      kind: 'approval',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: request.id,
      title: 'Ship it today?',
      kind: 'approval',
      options: ['approve', 'reject'],
      state: 'open',
    });
    expect(replaced.body.ticket_id).not.toBe(request.ticket_id);
    const old = (await t.get(`/v1/human/inbox/${request.ticket_id}`)).body;
    expect(old).toMatchObject({ state: 'superseded', title: 'Ship it?', options: ['a', 'b'] });
    const history = (await t.get('/v1/human/inbox/history?state=superseded&limit=200')).body;
    expect(history.data.map((k: { id: string }) => k.id)).toContain(request.ticket_id);
    const inbox = (await t.get('/v1/human/inbox?limit=200')).body;
    const ids = inbox.data.map((k: { id: string }) => k.id);
    expect(ids).toContain(replaced.body.ticket_id);
    expect(ids).not.toContain(request.ticket_id);
    // The old ticket takes nothing more; the new one is the one answered.
    expectState(
      await t.post(`/v1/human/inbox/${request.ticket_id}/respond`, { text: 'x' }),
      'superseded',
    );
    const answered = await t.post(`/v1/human/inbox/${replaced.body.ticket_id}/respond`, {
      choice: 'approve',
    });
    expect(answered.body).toMatchObject({ id: replaced.body.ticket_id, state: 'answered' });
    expect((await t.get(`/v1/human/requests/${request.id}`)).body.response.choice).toBe('approve');
    expect(humanEvents(request.id).map((e) => [e.action, e.state])).toEqual([
      ['created', 'open'],
      ['replaced', 'open'],
      ['answered', 'answered'],
    ]);
    expect(humanEvents(request.id)[1].superseded_ticket_id).toBe(request.ticket_id);
  });

  it('dismiss and cancel close without an answer, with the reason in the event', async () => {
    const dismissed = await ask();
    const d = await t.post(`/v1/human/requests/${dismissed.id}/dismiss`, { reason: 'not now' });
    expect(d.body).toMatchObject({ state: 'dismissed', response: null });
    expect(humanEvents(dismissed.id).at(-1)).toMatchObject({
      action: 'dismissed',
      reason: 'not now',
    });
    const cancelled = await ask({}, asker);
    const c = await t.post(`/v1/human/requests/${cancelled.id}/cancel`, {}, asker);
    expect(c.body).toMatchObject({ state: 'cancelled', app_id: 'app-a' });
    expect((await t.get(`/v1/human/inbox/${cancelled.ticket_id}`)).body.state).toBe('cancelled');
    expectState(await t.get(`/v1/human/inbox/${cancelled.ticket_id}/response`), 'cancelled');
    expectState(
      await put(`/v1/human/requests/${cancelled.id}`, { title: 'x' }, asker),
      'cancelled',
    );
  });
});

describe('the inbox', () => {
  it('lists open tickets newest first in pages; progress, decline and history', async () => {
    const a = await ask({ title: 'first' });
    const b = await ask({ title: 'second' });
    const page = (await t.get('/v1/human/inbox?limit=1')).body;
    expect(page).toMatchObject({
      data: [{ id: b.ticket_id }],
      has_more: true,
      next_cursor: b.ticket_id,
    });
    const next = (await t.get(`/v1/human/inbox?limit=1&after=${b.ticket_id}`)).body;
    expect(next.data[0].id).toBe(a.ticket_id);

    const progressed = await t.post(`/v1/human/inbox/${a.ticket_id}/progress`, { note: 'on it' });
    expect(progressed.body).toMatchObject({ state: 'in_progress', progressNote: 'on it' });
    expect((await t.get(`/v1/human/requests/${a.id}`)).body.state).toBe('in_progress');
    const working = (await t.get('/v1/human/inbox?state=in_progress&limit=200')).body;
    expect(working.data.map((k: { id: string }) => k.id)).toEqual([a.ticket_id]);
    expectState(await t.get(`/v1/human/inbox/${a.ticket_id}/response`), 'in_progress');

    const declined = await t.post(`/v1/human/inbox/${b.ticket_id}/cancel`, { reason: 'no' });
    expect(declined.body).toMatchObject({ id: b.ticket_id, state: 'dismissed' });
    expect((await t.get(`/v1/human/requests/${b.id}`)).body.state).toBe('dismissed');
    expect(humanEvents(b.id).at(-1)).toMatchObject({ action: 'declined', state: 'dismissed' });

    const history = (await t.get('/v1/human/inbox/history?limit=200')).body;
    const closed = history.data.map((k: { id: string }) => k.id);
    expect(closed).toContain(b.ticket_id);
    expect(closed).not.toContain(a.ticket_id);
    const inbox = (await t.get('/v1/human/inbox?limit=200')).body;
    expect(inbox.data.map((k: { id: string }) => k.id)).not.toContain(b.ticket_id);
    expect((await t.get('/v1/human/inbox?state=answered')).status).toBe(422);
    expect((await t.get('/v1/human/inbox/tk_nope')).status).toBe(422);
    expect((await t.get('/v1/human/inbox/tk_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
  });
});

describe('who may ask, see and answer', () => {
  it('asking needs svc:act (403 scope_missing)', async () => {
    const res = await t.call('/v1/human/requests', { ...json({ title: 'x' }), token: reader });
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
  });

  it("an app sees only its own requests; another app's answer 404", async () => {
    const mine = await ask({}, asker);
    expect((await t.get(`/v1/human/requests/${mine.id}`, reader)).body.id).toBe(mine.id);
    expect((await t.get(`/v1/human/requests/${mine.id}`, otherApp)).status).toBe(404);
    expect((await put(`/v1/human/requests/${mine.id}`, { title: 'x' }, otherApp)).status).toBe(404);
    expect((await t.post(`/v1/human/requests/${mine.id}/cancel`, {}, otherApp)).status).toBe(404);
    // The owner sees every request.
    expect((await t.get(`/v1/human/requests/${mine.id}`)).body.app_id).toBe('app-a');
  });

  it("answering and the inbox are the owner's: an app token gets 403 forbidden", async () => {
    const mine = await ask({}, asker);
    for (const [path, method] of [
      [`/v1/human/requests/${mine.id}/respond`, 'POST'],
      [`/v1/human/requests/${mine.id}/dismiss`, 'POST'],
      ['/v1/human/inbox', 'GET'],
      ['/v1/human/inbox/history', 'GET'],
      [`/v1/human/inbox/${mine.ticket_id}`, 'GET'],
      [`/v1/human/inbox/${mine.ticket_id}/respond`, 'POST'],
      [`/v1/human/inbox/${mine.ticket_id}/progress`, 'POST'],
      [`/v1/human/inbox/${mine.ticket_id}/cancel`, 'POST'],
      [`/v1/human/inbox/${mine.ticket_id}/response`, 'GET'],
    ] as const) {
      const res = await t.call(path, {
        method,
        token: asker,
        ...(method === 'POST' && { body: '{"text":"x"}' }),
      });
      expect(res.status, path).toBe(403);
      expect((await envelope(res)).code, path).toBe('forbidden');
    }
  });

  it("a node's request records its node; only that node (and the owner) sees it", async () => {
    const node = await t.createNode({ task: 'asks' });
    const other = await t.createNode({ task: 'another' });
    const token = t.nodeToken(node.id);
    const request = await ask({ title: 'Which branch?' }, token);
    expect(request).toMatchObject({ node_id: node.id, app_id: null });
    const ticket = (await t.get(`/v1/human/inbox/${request.ticket_id}`)).body;
    expect(ticket.asker).toEqual({ nodeId: node.id, appId: null });
    expect((await t.get(`/v1/human/requests/${request.id}`, token)).status).toBe(200);
    expect((await t.get(`/v1/human/requests/${request.id}`, t.nodeToken(other.id))).status).toBe(
      404,
    );
  });
});

describe('a node waiting on its request', () => {
  it('parks on it and wakes with the answer as mail', async () => {
    const node = await t.createNode({ task: 'asks and waits' });
    const token = t.nodeToken(node.id);
    const request = await ask({ options: ['left', 'right'] }, token);
    t.broker(node.id, 'start');
    const stranger = await ask();
    const refused = await t.post(
      `/v1/nodes/${node.id}/wait`,
      { for: 'human', request_id: stranger.id },
      token,
    );
    expect(refused.status).toBe(404);
    expect(refused.body.error.field).toBe('request_id');
    const parked = await t.post(
      `/v1/nodes/${node.id}/wait`,
      { for: 'human', request_id: request.id },
      token,
    );
    expect(parked.body).toMatchObject({
      state: 'waiting',
      waiting_on: { for: 'human', request_id: request.id },
    });
    await t.post(`/v1/human/inbox/${request.ticket_id}/respond`, { choice: 'left', text: 'go' });
    const woken = (await t.get(`/v1/nodes/${node.id}`)).body;
    expect(woken.state).toBe('queued');
    const news = (
      side.db.sqlite
        .prepare('SELECT text FROM mail WHERE node_id = ? ORDER BY seq')
        .all(node.id) as { text: string }[]
    ).map((m) => m.text);
    expect(news).toHaveLength(1);
    expect(news[0]).toMatch(new RegExp(`^Human request ${request.id} answered: `));
    const body = JSON.parse(news[0]!.slice(news[0]!.indexOf('{')));
    expect(body).toMatchObject({
      request_id: request.id,
      state: 'answered',
      response: { choice: 'left', text: 'go', data: null },
    });
  });

  it("a node that ends takes its open requests out of the inbox, and no other's", async () => {
    const node = await t.createNode({ task: 'asks, then is cancelled' });
    const token = t.nodeToken(node.id);
    const open = await ask({ title: 'Still needed?' }, token);
    const answered = await ask({ title: 'Answered first' }, token);
    await t.post(`/v1/human/requests/${answered.id}/respond`, { text: 'yes' });
    const others = await ask({ title: 'Not the node’s' });
    expect((await t.post(`/v1/nodes/${node.id}/cancel`, {})).status).toBe(200);
    const closed = (await t.get(`/v1/human/requests/${open.id}`)).body;
    expect(closed.state).toBe('cancelled');
    expect((await t.get(`/v1/human/inbox/${open.ticket_id}`)).body.state).toBe('cancelled');
    expect(humanEvents(open.id).at(-1)).toMatchObject({
      state: 'cancelled',
      reason: `node ${node.id} is cancelled`,
    });
    expect((await t.get(`/v1/human/requests/${answered.id}`)).body.state).toBe('answered');
    expect((await t.get(`/v1/human/requests/${others.id}`)).body.state).toBe('open');
    const inbox = (await t.get('/v1/human/inbox?limit=200')).body.data as { id: string }[];
    expect(inbox.map((ticket) => ticket.id)).not.toContain(open.ticket_id);
  });

  it('a request closed before the wait wakes the node at once', async () => {
    const node = await t.createNode({ task: 'asks, answered fast' });
    const token = t.nodeToken(node.id);
    const request = await ask({}, token);
    await t.post(`/v1/human/requests/${request.id}/dismiss`);
    t.broker(node.id, 'start');
    const answer = await t.post(
      `/v1/nodes/${node.id}/wait`,
      { for: 'human', request_id: request.id },
      token,
    );
    expect(answer.body.state).toBe('queued');
  });
});

describe('expiry', () => {
  it('an expired request reads as expired, its ticket in history; acting on it is 409', async () => {
    const request = await ask({ expires_in_s: 3600 });
    expect(Date.parse(request.expires_at)).toBeGreaterThan(Date.now() + 3_500_000);
    side.db.sqlite
      .prepare('UPDATE human_requests SET expires_at = ? WHERE id = ?')
      .run(new Date(Date.now() - 1000).toISOString(), request.id);
    expect((await t.get(`/v1/human/requests/${request.id}`)).body.state).toBe('expired');
    const history = (await t.get('/v1/human/inbox/history?state=expired')).body;
    expect(history.data.map((k: { id: string }) => k.id)).toContain(request.ticket_id);
    expectState(
      await t.post(`/v1/human/requests/${request.id}/respond`, { text: 'late' }),
      'expired',
    );
    expect(humanEvents(request.id).at(-1)).toMatchObject({ action: 'expired', state: 'expired' });
  });

  it('expires on its timer with nobody reading', async () => {
    const request = await ask({ expires_in_s: 1 });
    const state = () =>
      (
        side.db.sqlite.prepare('SELECT state FROM human_requests WHERE id = ?').get(request.id) as {
          state: string;
        }
      ).state;
    const deadline = Date.now() + 5_000;
    while (state() !== 'expired' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(state()).toBe('expired');
  });
});
