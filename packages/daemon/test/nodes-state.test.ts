import { join } from 'node:path';
import { NODE_STATES, type NodeAction, type NodeState, transition } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { openStore } from '../src/store/index.ts';
import { type Answer, type NodesDaemon, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
beforeAll(async () => {
  t = await startNodesDaemon();
});
afterAll(() => t.stop());

/** A fresh node brought to `state` the way callers and brokers would. */
async function nodeIn(state: NodeState): Promise<Node> {
  const node = await t.createNode({ task: `reach ${state}` });
  const id = node.id;
  if (state === 'queued') return node;
  if (state === 'cancelled') return (await t.post(`/v1/nodes/${id}/cancel`)).body as Node;
  t.broker(id, 'start');
  if (state === 'running') return t.get(`/v1/nodes/${id}`).then((r) => r.body as Node);
  if (state === 'waiting') return (await t.post(`/v1/nodes/${id}/yield`, {}, t.nodeToken(id))).body;
  if (state === 'done') return (await t.post(`/v1/nodes/${id}/result`, { summary: 'ok' })).body;
  return t.broker(id, 'fail', 'boom');
}

/** Each HTTP action with the state-machine action it applies and the request that applies it. */
const ACTIONS: {
  name: string;
  action: NodeAction;
  call(n: Node): Promise<Answer>;
}[] = [
  { name: 'interrupt', action: 'interrupt', call: (n) => t.post(`/v1/nodes/${n.id}/interrupt`) },
  { name: 'cancel', action: 'cancel', call: (n) => t.post(`/v1/nodes/${n.id}/cancel`) },
  {
    name: 'message',
    action: 'message',
    call: (n) => t.post(`/v1/nodes/${n.id}/messages`, { text: 'hi' }),
  },
  {
    name: 'result.submit',
    action: 'submit',
    call: (n) => t.post(`/v1/nodes/${n.id}/result`, { result: 1 }),
  },
  { name: 'revive', action: 'revive', call: (n) => t.post(`/v1/nodes/${n.id}/revive`) },
  {
    name: 'recycle',
    action: 'recycle',
    call: (n) => t.post(`/v1/nodes/${n.id}/recycle`, { task: 'again' }),
  },
  { name: 'fork', action: 'fork', call: (n) => t.post(`/v1/nodes/${n.id}/fork`) },
  { name: 'promote', action: 'promote', call: (n) => t.post(`/v1/nodes/${n.id}/promote`) },
  {
    name: 'relaunch-root',
    action: 'relaunch',
    call: (n) => t.post(`/v1/nodes/${n.id}/relaunch-root`),
  },
  {
    name: 'yield',
    action: 'yield',
    call: (n) => t.post(`/v1/nodes/${n.id}/yield`, {}, t.nodeToken(n.id)),
  },
  {
    name: 'wait (timer)',
    action: 'wait',
    call: (n) =>
      t.post(`/v1/nodes/${n.id}/wait`, { for: 'timer', seconds: 3600 }, t.nodeToken(n.id)),
  },
];

describe('the node state machine over HTTP', () => {
  const cells = NODE_STATES.flatMap((state) => ACTIONS.map((a) => ({ state, ...a })));

  it.each(cells)(
    '$state × $name answers as the state machine says',
    async ({ state, action, call }) => {
      const node = await nodeIn(state);
      expect(node.state).toBe(state);
      const res = await call(node);
      const rule = transition(state, action);
      if (rule.ok) {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        if (rule.node === 'same' && action !== 'message') {
          const after = (await t.get(`/v1/nodes/${node.id}`)).body as Node;
          expect(after.state).toBe(rule.to);
        }
      } else {
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('invalid_state');
        expect(res.body.error.message).toContain(`node is '${state}'`);
        const after = (await t.get(`/v1/nodes/${node.id}`)).body as Node;
        expect(after.state).toBe(state); // a refusal changes nothing
      }
    },
  );

  it('writes exactly one node.state event per state change, in the same order', async () => {
    const node = await nodeIn('running');
    await t.post(`/v1/nodes/${node.id}/interrupt`, { reason: 'stop' });
    await t.post(`/v1/nodes/${node.id}/messages`, { text: 'go on' });
    await t.post(`/v1/nodes/${node.id}/cancel`);
    const events = (await t.get(`/v1/nodes/${node.id}/events?kinds=node.state`)).body.data as {
      payload: { from: string | null; to: string; action: string; reason: string | null };
    }[];
    expect(events.map((e) => [e.payload.from, e.payload.to, e.payload.action])).toEqual([
      [null, 'queued', 'create'],
      ['queued', 'running', 'start'],
      ['running', 'waiting', 'interrupt'],
      ['waiting', 'queued', 'message'],
      ['queued', 'cancelled', 'cancel'],
    ]);
    expect(events[2]!.payload.reason).toBe('stop');
  });
});

describe("the supervisor's next launches", () => {
  it('are the oldest queued nodes, read no further than asked', async () => {
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push((await nodeIn('queued')).id);
    const store = openStore(join(t.home, 'svc.db'));
    try {
      const queued = store.nodes.inStates(['queued']).map((n) => n.id);
      expect(queued).toEqual(expect.arrayContaining(made));
      const oldest = store.nodes.oldestInState('queued', 2);
      expect(oldest.map((n) => n.id)).toEqual(queued.slice(0, 2));
      expect(oldest.every((n) => n.state === 'queued')).toBe(true);
    } finally {
      store.db.close();
    }
  });
});
