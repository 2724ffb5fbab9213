/**
 * The state changes a caller asks for by name: cancel (with the subtree), interrupt, revive,
 * relaunch, fail. Each goes through `move`; the runtime stops a broker after the commit.
 */
import { isFinal, type NodeState } from '@svc/protocol';
import { requireWithinCeiling } from './ceiling.ts';
import type { NodeDeps } from './deps.ts';
import { postMail, sender } from './mail.ts';
import { act, type MoveDeps, move } from './move.ts';
import type { Node } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, seenNode } from './visibility.ts';

type StopReason = 'cancel' | 'interrupt' | 'relaunch';

function stopAll(deps: Pick<NodeDeps, 'runtime'>, ids: readonly string[], reason: StopReason) {
  return Promise.all(ids.map((id) => deps.runtime().stop(id, reason))).then(() => {});
}

/** Cancels the node and, nearest first, every descendant not yet final (promoted ones left). */
export async function cancelNode(
  deps: MoveDeps,
  id: string,
  reason: string | undefined,
  caller: Caller,
): Promise<Node> {
  const stopped: string[] = [];
  const node = deps.store.db.transaction((afterCommit) => {
    const row = seenNode(deps.store, caller.sight, id);
    const why = reason ?? 'cancelled';
    const error = { code: 'cancelled', message: why };
    move(
      deps,
      row,
      'cancel',
      { reason: why, outcome: { result: null, summary: null, error } },
      afterCommit,
    );
    stopped.push(row.id);
    for (const child of deps.store.nodes.descendants(row.id)) {
      if (isFinal(child.state)) continue;
      const message = `an ancestor was cancelled: ${why}`;
      const outcome = { result: null, summary: null, error: { code: 'cancelled', message } };
      move(deps, child, 'cancel', { reason: message, outcome }, afterCommit);
      stopped.push(child.id);
    }
    return toNode(row);
  });
  await stopAll(deps, stopped, 'cancel');
  return node;
}

export async function interruptNode(
  deps: MoveDeps,
  id: string,
  reason: string | undefined,
  caller: Caller,
): Promise<Node> {
  const row = seenNode(deps.store, caller.sight, id);
  const node = act(deps, row.id, 'interrupt', {
    reason: reason ?? 'interrupted; waiting for a message',
  });
  await deps.runtime().stop(row.id, 'interrupt');
  return node;
}

/** A final node runs again; `message` (orders with it) is mail it reads first. */
export function reviveNode(
  deps: MoveDeps,
  id: string,
  message: string | undefined,
  caller: Caller,
): Node {
  return deps.store.db.transaction((afterCommit) => {
    const visible = seenNode(deps.store, caller.sight, id);
    if (message !== undefined) requireWithinCeiling(visible, caller.principal);
    const row = move(deps, visible, 'revive', {}, afterCommit);
    if (message !== undefined) postMail(deps, row, sender(caller.principal), message);
    return toNode(row);
  });
}

/** Revives every node in `states` (of one tree, if `rootId`); answers their ids. */
export function reviveAll(
  deps: MoveDeps,
  states: readonly NodeState[],
  rootId: string | undefined,
): string[] {
  return deps.store.db.transaction((afterCommit) => {
    const rows = deps.store.nodes.inStates(states, rootId ?? null);
    for (const row of rows) move(deps, row, 'revive', {}, afterCommit);
    return rows.map((r) => r.id);
  });
}

/** Queues the root of the node's tree again; its broker restarts from the last recorded turn. */
export async function relaunchRoot(deps: MoveDeps, id: string, caller: Caller): Promise<Node> {
  const row = seenNode(deps.store, caller.sight, id);
  const node = act(deps, row.root_id, 'relaunch', { wake: false });
  await deps.runtime().stop(row.root_id, 'relaunch');
  deps.runtime().wake(row.root_id);
  return node;
}

/** A fatal fault: the node fails with it. */
export function failNode(deps: MoveDeps, id: string, error: { code: string; message: string }) {
  return act(deps, id, 'fail', {
    reason: error.message,
    outcome: { result: null, summary: null, error },
  });
}
