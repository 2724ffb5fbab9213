import type { NodeService } from '../nodes/service.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';

/** What the history operations use: nodes are read by the nodes resource's read rule. */
export interface HistoryDeps {
  store: Pick<Store, 'canvas' | 'turns'>;
  nodes: Pick<NodeService, 'readVisibility' | 'readableRow'>;
}

/** A node filter the caller may use: a node it cannot see is 404, as everywhere. */
export function checkNode(
  nodes: HistoryDeps['nodes'],
  nodeId: string | undefined,
  principal: Principal,
): void {
  if (nodeId !== undefined) nodes.readableRow(nodeId, principal, 'node_id');
}
