import type { Principal } from '../ports.ts';
import type { FocusDeps } from './deps.ts';
import { mayWrite } from './may-write.ts';
import { retrieveFocus } from './retrieve.ts';

/** Forgets the node's focus. */
export function deleteFocus(
  deps: FocusDeps,
  nodeId: string,
  principal: Principal,
): { node_id: string; deleted: true } {
  mayWrite(nodeId, principal);
  return deps.store.db.transaction(() => {
    const focus = retrieveFocus(deps, nodeId, principal);
    deps.store.focuses.delete(focus.node_id);
    return { node_id: focus.node_id, deleted: true as const };
  });
}
