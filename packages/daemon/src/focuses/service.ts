/**
 * Focuses (docs/api-v1.md "Focuses"): which terminal-multiplexer pane shows a node, for the
 * viewer. A focus is viewer state, not part of the canvas record, so it records no event. It
 * follows the node's visibility: a caller reads the focus of a node it sees, and a node it does
 * not see answers 404 as if it did not exist.
 */

import { requireScope } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import type { NodeService } from '../nodes/service.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { Focus, FocusFilter } from './store.ts';

export interface FocusServiceDeps {
  store: Store;
  nodes: Pick<NodeService, 'visibility' | 'visibleRow'>;
  now?: () => Date;
}

export function focusService({ store, nodes, now = () => new Date() }: FocusServiceDeps) {
  /**
   * Writing takes `svc:act` (checked before the node is looked up, as a scope-gated route does),
   * except for the owner and a node token on its own node: a broker running inside a pane
   * registers itself whatever its node's scopes.
   */
  function mayWrite(nodeId: string, principal: Principal): void {
    if (principal.kind === 'node' && principal.nodeId === nodeId) return;
    requireScope(principal, 'svc:act', "setting or clearing a node's pane");
  }

  function visibleFocus(nodeId: string, principal: Principal): Focus {
    const node = nodes.visibleRow(nodeId, principal, 'node_id');
    const focus = store.focuses.get(node.id);
    if (focus === undefined) {
      throw new ApiError('not_found', `node ${nodeId} has no focus`, { field: 'node_id' });
    }
    return focus;
  }

  return {
    /** Sets the node's pane; setting again replaces it (`created_at` stays). */
    set(nodeId: string, pane: string, principal: Principal): Focus {
      mayWrite(nodeId, principal);
      return store.db.transaction(() => {
        const node = nodes.visibleRow(nodeId, principal, 'node_id');
        return store.focuses.set(node.id, pane, now().toISOString());
      });
    },

    get(nodeId: string, principal: Principal): Focus {
      return visibleFocus(nodeId, principal);
    },

    /** The focuses of the nodes the caller sees, newest node first. */
    list(principal: Principal, filter: FocusFilter): Focus[] {
      return store.focuses.list(nodes.visibility(principal), filter);
    },

    delete(nodeId: string, principal: Principal): { node_id: string; deleted: true } {
      mayWrite(nodeId, principal);
      return store.db.transaction(() => {
        const focus = visibleFocus(nodeId, principal);
        store.focuses.delete(focus.node_id);
        return { node_id: focus.node_id, deleted: true as const };
      });
    },
  };
}

export type FocusService = ReturnType<typeof focusService>;
