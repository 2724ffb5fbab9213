/**
 * `GET /v1/canvas/attention` and `/attention/counts` on a real daemon: every kind of item, the
 * order and pages, and what each kind of token sees.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { openStore } from '../src/store/index.ts';
import { type NodesDaemon, startNodesDaemon } from './nodes-fixture.ts';

interface Item {
  kind: string;
  node_id: string | null;
  ticket_id: string | null;
  cron_id: string | null;
  title: string;
  reason: string;
  since: string;
}

let t: NodesDaemon;
let side: ReturnType<typeof openStore>;
let appToken: string;
let failed: Node;
let parked: Node;
let asker: Node;
let stuck: Node;
let appFailed: Node;
let askTicket: string;
let cronId: string;

const attention = async (query = '', token?: string) => {
  const res = await t.get(`/v1/canvas/attention${query}`, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Item[]; has_more: boolean; next_cursor: string | null };
};

/** A node that started and asked a human, then waits on its request. */
async function askAndWait(title: string): Promise<{ node: Node; requestId: string }> {
  const node = await t.createNode({ task: title });
  t.broker(node.id, 'start');
  const token = t.nodeToken(node.id);
  const request = await t.post('/v1/human/requests', { title, body: 'ok?' }, token);
  expect(request.status).toBe(200);
  const waited = await t.post(
    `/v1/nodes/${node.id}/wait`,
    { for: 'human', request_id: request.body.id },
    token,
  );
  expect(waited.body).toMatchObject({ state: 'waiting' });
  return { node, requestId: request.body.id };
}

beforeAll(async () => {
  t = await startNodesDaemon();
  side = openStore(join(t.home, 'svc.db'));
  appToken = (await t.appToken(['svc:llm', 'svc:act', 'svc:schedule'], { app_id: 'app-a' })).token;

  failed = await t.createNode({ task: 'deploy v2' });
  t.broker(failed.id, 'start');
  t.broker(failed.id, 'fail', 'the provider refused the key');

  parked = await t.createNode({ task: 'long job' });
  t.broker(parked.id, 'start');
  t.broker(parked.id, 'budget_exhausted', 'budget reached: 3 of 3 turns used', {
    for: 'budget',
    budget: 'max_turns',
  });

  const asked = await askAndWait('may I delete the branch?');
  asker = asked.node;
  askTicket = (await t.get(`/v1/human/requests/${asked.requestId}`)).body.ticket_id;

  // A request that closed without waking its node (as after a crash between the two): nothing
  // in the inbox will unblock it.
  const lost = await askAndWait('lost question');
  stuck = lost.node;
  side.db.sqlite
    .prepare("UPDATE human_requests SET state = 'answered' WHERE id = ?")
    .run(lost.requestId);
  side.db.sqlite
    .prepare("UPDATE human_tickets SET state = 'answered' WHERE request_id = ?")
    .run(lost.requestId);

  appFailed = await t.createNode({ task: 'app work' }, appToken);
  t.broker(appFailed.id, 'start');
  t.broker(appFailed.id, 'fail', 'app node crashed');

  // An app's cron whose token is revoked: its next fire records the failure.
  const made = await t.appToken(['svc:llm', 'svc:act', 'svc:schedule'], { app_id: 'app-a' });
  const cron = await t.post(
    '/v1/crons',
    {
      schedule: '0 0 1 1 *',
      name: 'nightly report',
      task: {
        task: 'report',
        model: { provider: 'scripted', model: 'replay', script: [{ text: 'x' }] },
      },
    },
    made.token,
  );
  expect(cron.status).toBe(200);
  cronId = cron.body.id;
  expect((await t.call(`/v1/tokens/${made.token_id}`, { method: 'DELETE' })).status).toBe(200);
  expect((await t.post(`/v1/crons/${cronId}/run`)).status).toBe(403);
});

afterAll(async () => {
  side?.db.close();
  await t?.stop();
});

describe('canvas attention', () => {
  it('lists every kind of item the owner must act on, newest first', async () => {
    const { data, has_more } = await attention();
    expect(has_more).toBe(false);
    const byKind = (kind: string) => data.filter((i) => i.kind === kind);
    expect(
      byKind('node_failed')
        .map((i) => i.node_id)
        .sort(),
    ).toEqual([failed.id, appFailed.id].sort());
    expect(byKind('node_failed').find((i) => i.node_id === failed.id)).toMatchObject({
      title: 'deploy v2',
      reason: 'the provider refused the key',
      ticket_id: null,
      cron_id: null,
    });
    expect(byKind('node_budget')).toEqual([
      expect.objectContaining({ node_id: parked.id, reason: 'budget reached: 3 of 3 turns used' }),
    ]);
    // The open request shows once, as its ticket, naming the node that waits on it.
    expect(byKind('ticket')).toEqual([
      expect.objectContaining({
        ticket_id: askTicket,
        node_id: asker.id,
        title: 'may I delete the branch?',
        reason: expect.stringContaining(`from node ${asker.id}`),
      }),
    ]);
    expect(byKind('node_waiting_human')).toEqual([
      expect.objectContaining({ node_id: stuck.id, reason: expect.stringMatching(/answered/) }),
    ]);
    expect(byKind('cron_failed')).toEqual([
      expect.objectContaining({
        cron_id: cronId,
        node_id: null,
        title: 'nightly report',
        reason: expect.stringMatching(/forbidden: .*was revoked/),
      }),
    ]);
    expect(data).toHaveLength(6);
    const since = data.map((i) => i.since);
    expect(since).toEqual([...since].sort().reverse());
  });

  it('counts by kind', async () => {
    const res = await t.get('/v1/canvas/attention/counts');
    expect(res.body).toEqual({
      total: 6,
      by_kind: { ticket: 1, node_failed: 2, node_waiting_human: 1, node_budget: 1, cron_failed: 1 },
    });
  });

  it('pages with the cursor: every item once, in order', async () => {
    const all = (await attention()).data;
    const seen: Item[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await attention(
        `?limit=2${cursor === null ? '' : `&after=${encodeURIComponent(cursor)}`}`,
      );
      seen.push(...page.data);
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
      if (cursor === null) break;
    }
    expect(seen).toEqual(all);
  });

  it('filters by kinds', async () => {
    const { data } = await attention('?kinds=node_failed,cron_failed');
    expect(new Set(data.map((i) => i.kind))).toEqual(new Set(['node_failed', 'cron_failed']));
    expect(data).toHaveLength(3);
  });

  it('refuses a bad cursor or kind with 4xx and no 500', async () => {
    const cursor = await t.get('/v1/canvas/attention?after=nonsense');
    expect(cursor.status).toBe(400);
    expect(cursor.body.error).toMatchObject({ code: 'invalid_request', field: 'after' });
    const kind = await t.get('/v1/canvas/attention?kinds=node_failed,bogus');
    expect(kind.status).toBe(422);
    expect(kind.body.error.field).toBe('kinds');
    expect((await t.get('/v1/canvas/attention?limit=0')).status).toBe(422);
  });

  it("an app sees its own nodes' items and its crons, not the owner's", async () => {
    const { data } = await attention('', appToken);
    expect(data.map((i) => [i.kind, i.node_id ?? i.cron_id])).toEqual(
      expect.arrayContaining([
        ['node_failed', appFailed.id],
        ['cron_failed', cronId],
      ]),
    );
    expect(data).toHaveLength(2);
    const counts = await t.get('/v1/canvas/attention/counts', appToken);
    expect(counts.body).toMatchObject({ total: 2, by_kind: { node_failed: 1, cron_failed: 1 } });
  });

  it("a node token sees its own tree's items and no cron", async () => {
    const { data } = await attention('', t.nodeToken(asker.id));
    expect(data).toEqual([expect.objectContaining({ kind: 'ticket', node_id: asker.id })]);
    const other = await attention('', t.nodeToken(parked.id));
    expect(other.data).toEqual([expect.objectContaining({ kind: 'node_budget' })]);
  });

  it('drops a node once it is no longer failed', async () => {
    expect((await t.post(`/v1/nodes/${failed.id}/revive`, {})).status).toBe(200);
    const { data } = await attention('?kinds=node_failed');
    expect(data.map((i) => i.node_id)).toEqual([appFailed.id]);
  });

  it('needs a token', async () => {
    const res = await t.call('/v1/canvas/attention', { token: null });
    expect(res.status).toBe(401);
  });

  // Last: it adds a thousand open tickets.
  it("finds an app's ticket behind a thousand newer ones it may not see", async () => {
    const own = await t.post('/v1/human/requests', { title: 'the app asks' }, appToken);
    expect(own.status).toBe(200);
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          t.post('/v1/human/requests', { title: `owner ${batch}-${i}` }),
        ),
      );
    }
    const { data } = await attention('?kinds=ticket', appToken);
    expect(data.map((i) => i.ticket_id)).toEqual([own.body.ticket_id]);
  });
});
