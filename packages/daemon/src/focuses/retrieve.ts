import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { FocusDeps } from './deps.ts';
import type { Focus } from './store.ts';

/** The focus of a node the caller sees; 404 when the node is unseen or has none. */
export function retrieveFocus(
  { store, nodes }: Pick<FocusDeps, 'store' | 'nodes'>,
  nodeId: string,
  principal: Principal,
): Focus {
  const node = nodes.visibleRow(nodeId, principal, 'node_id');
  const focus = store.focuses.get(node.id);
  if (focus === undefined) {
    throw new ApiError('not_found', `node ${nodeId} has no focus`, { field: 'node_id' });
  }
  return focus;
}
