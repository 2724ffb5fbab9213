/**
 * Every state change of a node: through the protocol's state machine, with its `node.state`
 * event in the same transaction (plus `run.state`/`run.outcome` for a run's root). Processes are
 * the runtime's business: this only tells it, after the commit, when a node was queued.
 */
import { isFinal, type NodeAction, transition } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { type AfterCommit, type NodeDeps, now } from './deps.ts';
import { interrupted, settleOpenRecords } from './final-records.ts';
import type { Node, NodeRow, Outcome, WaitingOn } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';

/** What a state change may set besides the state. */
export interface MoveOptions {
  reason?: string | null | undefined;
  waitingOn?: WaitingOn | undefined;
  outcome?: Omit<Outcome, 'state' | 'finished_at'> | undefined;
  /** `false`: the caller tells the runtime itself (a relaunch stops the old broker first). */
  wake?: false | undefined;
  /** On `start`: the tool names the broker offers the model, for the `node.state` event. */
  tools?: readonly string[] | undefined;
}

export type MoveDeps = Pick<NodeDeps, 'store' | 'events' | 'runtime' | 'finalHooks' | 'timerSet'>;

/**
 * Applies `action` to the node in `row` (mutated and saved) inside the caller's transaction,
 * writing `node.state` when the state changes, and the run's events for a run's root. Refused
 * transitions throw 409 `invalid_state`. Side effects on processes run after the commit.
 */
export function move(
  deps: MoveDeps,
  row: NodeRow,
  action: NodeAction,
  opts: MoveOptions,
  afterCommit: AfterCommit,
): NodeRow {
  const { store, events } = deps;
  const t = transition(row.state, action);
  if (!t.ok) throw new ApiError('invalid_state', t.message);
  const from = row.state;
  const at = now();
  row.state = t.to;
  row.state_reason = t.to === 'queued' || t.to === 'running' ? null : (opts.reason ?? null);
  row.waiting_on = t.to === 'waiting' ? (opts.waitingOn ?? { for: 'mail' }) : null;
  if (t.to === 'running' && row.started_at === null) row.started_at = at;
  let outcome: Outcome | null = null;
  if (isFinal(t.to)) {
    outcome = {
      state: t.to as Outcome['state'],
      result: opts.outcome?.result ?? null,
      summary: opts.outcome?.summary ?? null,
      error: opts.outcome?.error ?? null,
      finished_at: at,
    };
    row.outcome = outcome;
    row.finished_at = at;
  } else {
    row.outcome = null;
    row.finished_at = null;
  }
  row.updated_at = at;
  store.nodes.save(row);
  if (from !== t.to) {
    const reason = row.state_reason;
    // Whatever the node leaves open is settled now, so that its outcome is its last event.
    if (outcome !== null) {
      const why = reason ?? `the node is ${t.to}`;
      settleOpenRecords(store, events, row.id, interrupted(why), at);
    }
    events.record('node.state', row.id, {
      node_id: row.id,
      from,
      to: t.to,
      action,
      reason,
      ...(opts.tools !== undefined && { tools: [...opts.tools] }),
    });
    const runId = runOfRoot(row);
    if (runId !== null) {
      events.record('run.state', runId, { run_id: runId, node_id: row.id, from, to: t.to, reason });
    }
    if (outcome !== null) {
      events.record('node.outcome', row.id, { node_id: row.id, outcome });
      if (runId !== null) events.record('run.outcome', runId, { run_id: runId, outcome });
      wakeParentIfSatisfied(deps, row, afterCommit);
      for (const hook of deps.finalHooks) hook(row, afterCommit);
    }
  }
  if (t.to === 'queued' && opts.wake !== false) afterCommit(() => deps.runtime().wake(row.id));
  if (t.to === 'waiting' && opts.waitingOn?.for === 'timer') afterCommit(() => deps.timerSet());
  return row;
}

/** One state change in its own transaction, answering the node. */
export function act(deps: MoveDeps, id: string, action: NodeAction, opts: MoveOptions = {}): Node {
  return deps.store.db.transaction((afterCommit) => {
    const row = deps.store.nodes.get(id);
    if (row === undefined) throw new ApiError('not_found', `no node ${id}`, { field: 'id' });
    return toNode(move(deps, row, action, opts, afterCommit));
  });
}

/** The run whose root this node is, if any. */
export function runOfRoot(row: NodeRow): string | null {
  return row.parent_id === null && row.run_id !== null ? row.run_id : null;
}

/** `{for: 'children'}` holds: every awaited child final (`all`), or one of them (`any`). */
export function childrenDone(
  deps: Pick<NodeDeps, 'store'>,
  waiting: Extract<WaitingOn, { for: 'children' }>,
): boolean {
  const finals = waiting.node_ids.map((id) => {
    const child = deps.store.nodes.get(id);
    return child === undefined || isFinal(child.state);
  });
  return waiting.mode === 'any' ? finals.some(Boolean) : finals.every(Boolean);
}

function wakeParentIfSatisfied(deps: MoveDeps, child: NodeRow, afterCommit: AfterCommit): void {
  if (child.parent_id === null) return;
  const parent = deps.store.nodes.get(child.parent_id);
  const waiting = parent?.state === 'waiting' ? parent.waiting_on : null;
  if (parent === undefined || waiting === null) return;
  if (waiting.for !== 'children' || !waiting.node_ids.includes(child.id)) return;
  if (childrenDone(deps, waiting)) move(deps, parent, 'wake', {}, afterCommit);
}
