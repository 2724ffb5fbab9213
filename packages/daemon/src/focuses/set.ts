import type { Principal } from '../ports.ts';
import type { FocusDeps } from './deps.ts';
import { mayWrite } from './may-write.ts';
import type { Focus } from './store.ts';

/** Sets the node's pane; setting again replaces it (`created_at` stays). */
export function setFocus(
  { store, nodes, now }: FocusDeps,
  nodeId: string,
  pane: string,
  principal: Principal,
): Focus {
  mayWrite(nodeId, principal);
  return store.db.transaction(() => {
    const node = nodes.visibleRow(nodeId, principal, 'node_id');
    return store.focuses.set(node.id, pane, now().toISOString());
  });
}
