import type { Directive, FaultBody } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { refusedCredentials } from '../models/readiness.ts';
import type { Node } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';
import { directiveOf } from './directive.ts';

type FaultDeps = Pick<PlaneDeps, 'store' | 'events' | 'nodes' | 'relaunchBudget'>;

/**
 * A fault in the node's record; fatal (or past the relaunch budget) fails the node, else it is
 * relaunched from its last recorded turn. `counted: false` for faults not of the node's making.
 * Crashes and non-fatal faults count against a budget that a new turn resets: a broker that
 * keeps dying without progress fails its node instead of looping for ever.
 */
export function fault(
  { store, events, nodes, relaunchBudget: budget }: FaultDeps,
  id: string,
  body: FaultBody,
  counted: boolean,
): { node: Node; directive: Directive } {
  return store.db.transaction((afterCommit) => {
    const node = nodeRow(store, id);
    if (node.state !== 'running' && node.state !== 'queued') {
      throw new ApiError(
        'invalid_state',
        `node is '${node.state}'; faults are recorded only while it is queued or running`,
      );
    }
    events.record('node.fault', id, { node_id: id, fault: { ...body, at: now() } });
    const count = counted && !body.fatal ? store.brokers.addFault(id) : 0;
    if (body.fatal || count > budget) {
      const message = body.fatal
        ? body.message
        : `${body.message} (${count} broker failures since the last recorded turn; the relaunch budget is ${budget})`;
      const error = { code: body.code, message };
      nodes.move(
        node,
        'fail',
        { reason: message, outcome: { result: null, summary: null, error } },
        afterCommit,
      );
    } else {
      nodes.move(node, 'relaunch', { reason: body.message }, afterCommit);
    }
    return { node: toNode(node), directive: directiveOf(store, node) };
  });
}

/** `broker.faults.record`; a refused key is said with its provider and the fix. */
export function recordFault(deps: FaultDeps, id: string, body: FaultBody) {
  if (body.code !== 'auth_failed') return fault(deps, id, body, true);
  const { provider } = nodeRow(deps.store, id).model;
  return fault(deps, id, { ...body, message: refusedCredentials(provider, body.message) }, true);
}
