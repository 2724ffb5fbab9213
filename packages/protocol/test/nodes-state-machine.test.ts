import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  allowedFrom,
  FINAL_STATES,
  type FromState,
  isFinal,
  isNodeState,
  NODE_ACTIONS,
  NODE_STATES,
  type NodeAction,
  type NodeState,
  transition,
} from '../src/index.ts';

// The lifecycle of docs/nodes.md, written out independently of the implementation's table:
// every allowed (from, action) → to. Every pair not listed must be refused.
const ALLOWED: Record<NodeAction, Partial<Record<NodeState | 'none', NodeState>>> = {
  create: { none: 'queued' },
  start: { queued: 'running' },
  yield: { running: 'waiting' },
  wait: { running: 'waiting' },
  wake: { waiting: 'queued' },
  interrupt: { queued: 'waiting', running: 'waiting' },
  message: { queued: 'queued', running: 'running', waiting: 'queued' },
  submit: { running: 'done', waiting: 'done' },
  fail: { queued: 'failed', running: 'failed', waiting: 'failed' },
  cancel: { queued: 'cancelled', running: 'cancelled', waiting: 'cancelled' },
  revive: { failed: 'queued', cancelled: 'queued' },
  recycle: { done: 'queued' },
  fork: {
    queued: 'queued',
    running: 'queued',
    waiting: 'queued',
    done: 'queued',
    failed: 'queued',
    cancelled: 'queued',
  },
  promote: {
    queued: 'queued',
    running: 'running',
    waiting: 'waiting',
    done: 'done',
    failed: 'failed',
    cancelled: 'cancelled',
  },
  demote: {
    queued: 'queued',
    running: 'running',
    waiting: 'waiting',
    done: 'done',
    failed: 'failed',
    cancelled: 'cancelled',
  },
  relaunch: { queued: 'queued', running: 'queued', waiting: 'queued' },
  budget_exhausted: { running: 'waiting' },
};

const FROM: FromState[] = [null, ...NODE_STATES];
const pairs = FROM.flatMap((from) => NODE_ACTIONS.map((action) => [from, action] as const));

describe('transition: every (state, action) pair', () => {
  it('covers the six states and seventeen actions of the brief', () => {
    expect([...NODE_STATES]).toEqual([
      'queued',
      'running',
      'waiting',
      'done',
      'failed',
      'cancelled',
    ]);
    expect(NODE_ACTIONS).toHaveLength(17);
    expect(Object.keys(ALLOWED).sort()).toEqual([...NODE_ACTIONS].sort());
    expect(pairs).toHaveLength(7 * 17);
  });

  it.each(pairs)('%s + %s', (from, action) => {
    const expected = ALLOWED[action][from ?? 'none'];
    const result = transition(from, action);
    if (expected === undefined) {
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.code).toBe('invalid_state');
      if (from === null) expect(result.message).toBe(`'${action}' needs an existing node`);
      else expect(result.message).toContain(`node is '${from}'`);
    } else {
      expect(result).toEqual({ ok: true, to: expected, node: action === 'fork' ? 'new' : 'same' });
    }
  });
});

describe('rules the lifecycle keeps', () => {
  it('isFinal: done, failed and cancelled only', () => {
    expect(NODE_STATES.filter(isFinal)).toEqual([...FINAL_STATES]);
    expect(FINAL_STATES).toEqual(['done', 'failed', 'cancelled']);
  });

  it('leaves a final state only by revive, recycle, fork (a new node), promote or demote', () => {
    for (const from of FINAL_STATES) {
      for (const action of NODE_ACTIONS) {
        const r = transition(from, action);
        if (!r.ok) continue;
        const leaves = r.node === 'same' && r.to !== from;
        if (leaves) expect(['revive', 'recycle']).toContain(action);
        else expect(['fork', 'promote', 'demote', 'revive', 'recycle']).toContain(action);
      }
    }
  });

  it('only create starts from no node, and every node starts queued', () => {
    for (const action of NODE_ACTIONS) {
      expect(transition(null, action).ok).toBe(action === 'create');
    }
    expect(transition(null, 'create')).toEqual({ ok: true, to: 'queued', node: 'same' });
  });

  it('names the current state and the allowed ones when refusing', () => {
    const r = transition('done', 'interrupt');
    expect(r).toEqual({
      ok: false,
      code: 'invalid_state',
      message: "node is 'done'; 'interrupt' is allowed only from queued, running",
    });
    const create = transition('running', 'create');
    expect(create.ok === false && create.message).toBe(
      "node is 'running'; 'create' is allowed only from (no node)",
    );
  });

  it('allowedFrom lists exactly the states a transition succeeds from', () => {
    for (const action of NODE_ACTIONS) {
      expect(allowedFrom(action)).toEqual(FROM.filter((s) => transition(s, action).ok));
    }
  });

  it('isNodeState accepts the six states only', () => {
    for (const s of NODE_STATES) expect(isNodeState(s)).toBe(true);
    for (const s of ['', 'Done', 'parked', null, 3]) expect(isNodeState(s)).toBe(false);
  });
});

describe('docs/nodes.md', () => {
  const doc = readFileSync(new URL('../../../docs/nodes.md', import.meta.url), 'utf8');

  it('states the same transitions as the table, action by action', () => {
    const rows = new Map<string, string>();
    for (const m of doc.matchAll(/^\| `([a-z_]+)` \| ([^|]*→[^|]*) \|/gm)) {
      rows.set(m[1] ?? '', m[2] ?? '');
    }
    expect([...rows.keys()].sort()).toEqual([...NODE_ACTIONS].sort());
    for (const action of NODE_ACTIONS) {
      const documented = (rows.get(action) ?? '').split(',').map((pair) => {
        const [from, to] = pair.split('→').map((s) => s.trim());
        return [from === 'none' ? null : from, to];
      });
      const actual = FROM.flatMap((from) => {
        const r = transition(from, action);
        return r.ok ? [[from, r.to]] : [];
      });
      expect(documented, action).toEqual(actual);
    }
  });
});
