/**
 * The node lifecycle (DESIGN §5, docs/nodes.md):
 *
 *   (none) ─create─► queued ─start─► running ─yield/wait/interrupt/budget─► waiting
 *                      ▲                │                                     │
 *                      └──wake/message──┼─────────────────────────────────────┘
 *                                       ├─submit─► done ─recycle─► queued
 *                                       ├─fail───► failed ─revive─► queued
 *                                       └─cancel─► cancelled ─revive─► queued
 *
 * Every other (state, action) pair is refused with 409 `invalid_state` naming the current state.
 * The table is pure data, so the daemon, the docs and the tests read the same rules.
 *
 * A woken node goes back to `queued`, not straight to `running`: a waiting node holds no broker
 * slot (otherwise parents waiting on children could hold every slot and starve them), so it
 * queues for one like any other node.
 */

export const NODE_STATES = ['queued', 'running', 'waiting', 'done', 'failed', 'cancelled'] as const;
export type NodeState = (typeof NODE_STATES)[number];

export const FINAL_STATES = ['done', 'failed', 'cancelled'] as const satisfies readonly NodeState[];

export const NODE_ACTIONS = [
  'create',
  'start',
  'yield',
  'wait',
  'wake',
  'interrupt',
  'message',
  'submit',
  'fail',
  'cancel',
  'revive',
  'recycle',
  'fork',
  'promote',
  'demote',
  'relaunch',
  'budget_exhausted',
] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

/** `null` stands for "no node yet": the only state `create` starts from. */
export type FromState = NodeState | null;

interface Rule {
  /** The states the action is allowed from, each with the state it leads to. */
  from: Partial<Record<NodeState | 'none', NodeState>>;
  /** `new`: the action makes another node in `to` and leaves this one as it is (`fork`). */
  node: 'same' | 'new';
  /** Why, for the docs and the refusal message. */
  does: string;
}

const EVERY_STATE = Object.fromEntries(NODE_STATES.map((s) => [s, s])) as Record<
  NodeState,
  NodeState
>;
const ALL_TO_QUEUED = Object.fromEntries(NODE_STATES.map((s) => [s, 'queued'])) as Record<
  NodeState,
  NodeState
>;

export const TRANSITIONS: Readonly<Record<NodeAction, Rule>> = Object.freeze({
  create: { from: { none: 'queued' }, node: 'same', does: 'makes a new node' },
  start: { from: { queued: 'running' }, node: 'same', does: 'a broker takes the node' },
  yield: { from: { running: 'waiting' }, node: 'same', does: 'the node waits for mail' },
  wait: {
    from: { running: 'waiting' },
    node: 'same',
    does: 'the node waits for children, a human or a timer',
  },
  wake: { from: { waiting: 'queued' }, node: 'same', does: 'the wait is satisfied' },
  interrupt: {
    from: { queued: 'waiting', running: 'waiting' },
    node: 'same',
    does: 'stops the turn in flight; the node waits for a message',
  },
  message: {
    // Mail to a queued or running node is read at its next turn; a waiting node wakes.
    from: { queued: 'queued', running: 'running', waiting: 'queued' },
    node: 'same',
    does: 'sends mail',
  },
  submit: {
    from: { running: 'done', waiting: 'done' },
    node: 'same',
    does: 'records the outcome',
  },
  fail: {
    from: { queued: 'failed', running: 'failed', waiting: 'failed' },
    node: 'same',
    does: 'records a fatal fault',
  },
  cancel: {
    from: { queued: 'cancelled', running: 'cancelled', waiting: 'cancelled' },
    node: 'same',
    does: 'stops the node for good',
  },
  revive: {
    from: { failed: 'queued', cancelled: 'queued' },
    node: 'same',
    does: 'queues the node again with its history',
  },
  recycle: {
    from: { done: 'queued' },
    node: 'same',
    does: 'gives a finished node a fresh task',
  },
  fork: { from: ALL_TO_QUEUED, node: 'new', does: "copies the node's conversation" },
  // Promote and demote change where a node hangs in its tree, never its state.
  promote: { from: EVERY_STATE, node: 'same', does: 'detaches the node into a root' },
  demote: { from: EVERY_STATE, node: 'same', does: 'attaches the node under a parent' },
  relaunch: {
    from: { queued: 'queued', running: 'queued', waiting: 'queued' },
    node: 'same',
    does: "restarts the root's broker from its last recorded turn",
  },
  budget_exhausted: {
    from: { running: 'waiting' },
    node: 'same',
    does: 'parks the node at a budget',
  },
});

export type TransitionResult =
  | { ok: true; to: NodeState; node: 'same' | 'new' }
  | { ok: false; code: 'invalid_state'; message: string };

export function isNodeState(value: unknown): value is NodeState {
  return typeof value === 'string' && (NODE_STATES as readonly string[]).includes(value);
}

export function isFinal(state: NodeState): boolean {
  return (FINAL_STATES as readonly NodeState[]).includes(state);
}

/** The states `action` is allowed from (`null` = no node yet). */
export function allowedFrom(action: NodeAction): FromState[] {
  return Object.keys(TRANSITIONS[action].from).map((s) => (s === 'none' ? null : (s as NodeState)));
}

/**
 * Where `action` takes a node in `state`. For `fork`, `to` is the state of the new node and the
 * source keeps its own (`node: 'new'`). A refusal names the current state and the allowed ones.
 */
export function transition(state: FromState, action: NodeAction): TransitionResult {
  const rule = TRANSITIONS[action];
  const to = rule.from[state ?? 'none'];
  if (to !== undefined) return { ok: true, to, node: rule.node };
  const allowed = allowedFrom(action).map((s) => s ?? '(no node)');
  const message =
    state === null
      ? `'${action}' needs an existing node`
      : `node is '${state}'; '${action}' is allowed only from ${allowed.join(', ')}`;
  return { ok: false, code: 'invalid_state', message };
}
