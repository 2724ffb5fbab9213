/**
 * `GET /v1/canvas/snapshot` and `/roster` on a real daemon: the picture at one seq that an event
 * stream continues with no gap, its bounds, and who sees which nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { type NodesDaemon, startNodesDaemon } from './nodes-fixture.ts';
import { readFrames } from './sse.ts';

interface CanvasNode {
  id: string;
  parent_id: string | null;
  root_id: string;
  state: string;
  title: string;
  task_summary: string;
  usage: { turns: number };
}

interface Snapshot {
  seq: number;
  nodes: CanvasNode[];
  truncated: boolean;
}

interface Event {
  seq: number;
  kind: string;
  subject_id: string | null;
  payload: Record<string, unknown>;
}

let t: NodesDaemon;
let holder: Node;
let appToken: string;

const snapshot = async (query = '', token?: string): Promise<Snapshot> => {
  const res = await t.get(`/v1/canvas/snapshot${query}`, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Snapshot;
};

/** Every event after `after` committed so far, from the owner's event stream. */
async function eventsAfter(after: number): Promise<Event[]> {
  const res = await t.call(`/v1/events?after=${after}&follow=false`);
  const { frames, ended } = await readFrames(res, () => false, 10_000);
  expect(ended).toBe(true);
  return frames.filter((f) => f.data !== undefined).map((f) => JSON.parse(f.data!) as Event);
}

beforeAll(async () => {
  t = await startNodesDaemon();
  holder = (await t.get('/v1/nodes?limit=1')).body.data[0] as Node;
  appToken = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-s' })).token;
});

afterAll(async () => {
  await t?.stop();
});

describe('canvas snapshot', () => {
  it('answers the visible nodes in compact form with the last seq', async () => {
    const root = await t.createNode({ task: `plan the release\n${'x'.repeat(500)}` });
    const child = await t.createNode({ task: 'write notes', parent_id: root.id });
    const snap = await snapshot();
    const ids = snap.nodes.map((n) => n.id);
    expect(ids).toEqual(expect.arrayContaining([holder.id, root.id, child.id]));
    const drawn = snap.nodes.find((n) => n.id === child.id)!;
    expect(drawn).toMatchObject({ parent_id: root.id, root_id: root.id, state: 'queued' });
    expect(drawn).not.toHaveProperty('task');
    expect(drawn).not.toHaveProperty('scopes');
    expect(snap.nodes.find((n) => n.id === root.id)!.task_summary).toHaveLength(200);
    const last = await eventsAfter(0);
    expect(snap.seq).toBe(last.at(-1)!.seq);
    expect(snap.truncated).toBe(false);
  });

  it('streaming events after its seq loses nothing and repeats nothing', async () => {
    const base = await t.createNode({ task: 'base' });
    // Writes race the snapshot: whatever the snapshot missed must be in the stream after it.
    const writes = Array.from({ length: 8 }, (_, i) =>
      t.createNode({ task: `racer ${i}`, parent_id: base.id }),
    );
    const [snap] = await Promise.all([snapshot(`?root_id=${base.id}`), ...writes]);
    const after = await eventsAfter(snap.seq);
    const before = (await eventsAfter(0)).filter((e) => e.seq <= snap.seq);
    expect(after.every((e) => e.seq > snap.seq)).toBe(true);
    expect(after[0]?.seq ?? snap.seq + 1).toBe(snap.seq + 1);

    // Rebuild the tree from the snapshot plus the events after it: it is the tree as it is now.
    const states = new Map(snap.nodes.map((n) => [n.id, n.state]));
    for (const event of after) {
      if (event.kind !== 'node.state') continue;
      const p = event.payload as { node_id: string; to: string; from: string | null };
      if (p.from === null && !states.has(p.node_id)) {
        const node = (await t.get(`/v1/nodes/${p.node_id}`)).body as Node;
        if (node.root_id !== base.id) continue;
      }
      states.set(p.node_id, p.to);
    }
    const now = (await t.get(`/v1/nodes?root_id=${base.id}&limit=50`)).body.data as Node[];
    expect(states).toEqual(new Map(now.map((n) => [n.id, n.state])));
    // And the snapshot holds exactly the nodes whose creation it had seen.
    const createdBefore = before
      .filter((e) => e.kind === 'node.state' && e.payload.from === null)
      .map((e) => e.payload.node_id as string)
      .filter((id) => now.some((n) => n.id === id));
    expect(snap.nodes.map((n) => n.id).sort()).toEqual(createdBefore.sort());
  });

  it('reflects each node as of its seq', async () => {
    const node = await t.createNode({ task: 'will fail' });
    t.broker(node.id, 'start');
    const snap = await snapshot();
    t.broker(node.id, 'fail', 'boom');
    expect(snap.nodes.find((n) => n.id === node.id)!.state).toBe('running');
    const after = await eventsAfter(snap.seq);
    expect(after.filter((e) => e.kind === 'node.state').map((e) => e.payload.to)).toEqual([
      'failed',
    ]);
  });

  it('is bounded: the newest `limit` nodes, truncated saying so', async () => {
    const snap = await snapshot('?limit=2');
    expect(snap.nodes).toHaveLength(2);
    expect(snap.truncated).toBe(true);
    const all = await snapshot();
    expect(snap.nodes.map((n) => n.id)).toEqual(all.nodes.slice(0, 2).map((n) => n.id));
    expect((await t.get('/v1/canvas/snapshot?limit=5001')).status).toBe(422);
  });

  it('shows an app its own trees and a node its own tree; a hidden root_id is 404', async () => {
    const mine = await t.createNode({ task: 'app root' }, appToken);
    const ownerChild = await t.createNode({ task: 'owner under app', parent_id: mine.id });
    const app = await snapshot('', appToken);
    expect(app.nodes.map((n) => n.id).sort()).toEqual([mine.id, ownerChild.id].sort());
    const node = await snapshot('', t.nodeToken(ownerChild.id));
    expect(node.nodes.map((n) => n.id).sort()).toEqual([mine.id, ownerChild.id].sort());
    const hidden = await t.get(`/v1/canvas/snapshot?root_id=${holder.id}`, appToken);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toMatchObject({ code: 'not_found', field: 'root_id' });
  });
});

describe('canvas roster', () => {
  interface Entry {
    node_id: string;
    state: string;
    broker: { pid: number | null; since: string; claimed_at: string | null } | null;
    usage: { turns: number; input_tokens: number; cost_usd: number };
    waiting_on: { for: string } | null;
    since: string;
    last_turn_at: string | null;
  }

  const roster = async (query = '', token?: string) => {
    const res = await t.get(`/v1/canvas/roster${query}`, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data: Entry[]; has_more: boolean; next_cursor: string | null };
  };

  it('lists the live nodes with their broker, usage and wait; final ones are left out', async () => {
    const waiting = await t.createNode({ task: 'parked' });
    t.broker(waiting.id, 'start');
    t.recordTurn(waiting.id, 1);
    t.broker(waiting.id, 'budget_exhausted', 'budget reached', {
      for: 'budget',
      budget: 'max_turns',
    });
    const done = await t.createNode({ task: 'ends' });
    t.broker(done.id, 'start');
    t.broker(done.id, 'fail', 'x');
    const { data } = await roster('?limit=200');
    const ids = data.map((e) => e.node_id);
    expect(ids).toContain(waiting.id);
    expect(ids).not.toContain(done.id);
    expect(data.every((e) => ['queued', 'running', 'waiting'].includes(e.state))).toBe(true);
    // The first node holds the only slot, on a broker process that never claims it.
    const held = data.find((e) => e.node_id === holder.id)!;
    expect(held.broker).toMatchObject({ pid: expect.any(Number), claimed_at: null });
    const parked = data.find((e) => e.node_id === waiting.id)!;
    expect(parked).toMatchObject({
      state: 'waiting',
      broker: null,
      waiting_on: { for: 'budget' },
      last_turn_at: expect.any(String),
    });
    expect(parked.since).toBe((await t.get(`/v1/nodes/${waiting.id}`)).body.started_at);
  });

  it('filters by state and pages', async () => {
    const { data } = await roster('?state=waiting');
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((e) => e.state === 'waiting')).toBe(true);
    const all = (await roster('?limit=200')).data;
    const first = await roster('?limit=1');
    expect(first).toMatchObject({ has_more: true, next_cursor: all[0]!.node_id });
    const second = await roster(`?limit=1&after=${first.next_cursor}`);
    expect(second.data[0]!.node_id).toBe(all[1]!.node_id);
    expect((await t.get('/v1/canvas/roster?state=done')).status).toBe(422);
  });

  it("an app sees only its own trees' agents", async () => {
    const { data } = await roster('', appToken);
    expect(data.length).toBeGreaterThan(0);
    for (const entry of data) {
      const res = await t.get(`/v1/nodes/${entry.node_id}`, appToken);
      expect(res.status).toBe(200);
    }
    expect(data.map((e) => e.node_id)).not.toContain(holder.id);
  });
});
