/** Reading nodes: one (`nodes.retrieve`) or a page of them (`nodes.list`), as the caller sees. */
import type { NodeDeps } from './deps.ts';
import type { Node, NodeFilter } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, nodeVisibility, seenNode } from './visibility.ts';

export function getNode(
  deps: Pick<NodeDeps, 'store'>,
  id: string,
  caller: Caller,
  field = 'id',
): Node {
  return toNode(seenNode(deps.store, caller.sight, id, field));
}

export function listNodes(
  deps: Pick<NodeDeps, 'store'>,
  caller: Caller,
  filter: NodeFilter,
): Node[] {
  return deps.store.nodes.list(nodeVisibility(caller.sight), filter).map(toNode);
}
