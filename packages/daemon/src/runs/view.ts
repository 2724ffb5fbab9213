/**
 * A run as its tree shows it (docs/nodes.md "runs"): state, budgets and outcome are the root's,
 * usage the tree's sum; the run row adds the title, the owner app and the app's grant. A run is
 * seen as its root node is (the nodes' rule), and changed as its root is.
 */
import type { runSchema } from '@svc/protocol';
import type { z } from 'zod';
import { requireScope } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import { type Caller, nodeVisibility } from '../nodes/visibility.ts';
import type { Store } from '../store/index.ts';
import type { RunRow } from './store.ts';

export type Run = z.output<typeof runSchema>;

export interface SeenRun {
  run: RunRow;
  root: NodeRow;
}

export function toRun(store: Store, run: RunRow, root: NodeRow): Run {
  const node = toNode(root);
  return {
    id: run.id,
    app_id: run.app_id,
    node_id: run.node_id,
    title: run.title,
    state: node.state,
    state_reason: node.state_reason,
    waiting_on: node.waiting_on,
    profile: node.profile,
    model: node.model,
    scopes: node.scopes,
    budgets: node.budgets,
    usage: store.nodes.treeUsage(root.id),
    outcome: node.outcome,
    metadata: node.metadata,
    created_at: run.created_at,
    updated_at: run.updated_at > node.updated_at ? run.updated_at : node.updated_at,
    finished_at: node.finished_at,
  };
}

/**
 * The run if the caller sees its root (the owner every run, an app its own, on reads also those
 * of the apps it may read, a node token the run of its tree); else 404, as if it did not exist.
 */
export function seenRun(store: Store, caller: Caller, id: string): SeenRun {
  const run = store.runs.get(id);
  const root =
    run === undefined ? undefined : store.nodes.visible(run.node_id, nodeVisibility(caller.sight));
  if (run === undefined || root === undefined) {
    throw new ApiError('not_found', `no run ${id}`, { field: 'id' });
  }
  return { run, root };
}

/**
 * `seenRun` for the routes that change a run. A node token also needs `svc:act` here, as it
 * does for the same operation on the run's root through `/v1/nodes/...` (SPEC: `svc:act` gates
 * messaging nodes); an app needs no scope to change its own runs.
 * @param what the operation, for the refusal: "a node <what> a run"
 */
export function changeableRun(store: Store, caller: Caller, id: string, what: string): SeenRun {
  const { principal } = caller;
  if (principal.kind === 'node') requireScope(principal, 'svc:act', `a node ${what} a run`);
  return seenRun(store, caller, id);
}
