/**
 * Focuses (docs/api-v1.md "Focuses"): which terminal-multiplexer pane shows a node, for the
 * viewer. A focus is viewer state, not part of the canvas record, so it records no event. It
 * follows the node's visibility: a caller reads the focus of a node it sees, and a node it does
 * not see answers 404 as if it did not exist.
 */

import type { NodeService } from '../nodes/service.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { deleteFocus } from './delete.ts';
import { listFocuses } from './list.ts';
import { retrieveFocus } from './retrieve.ts';
import { setFocus } from './set.ts';
import type { FocusFilter } from './store.ts';

export interface FocusServiceDeps {
  store: Store;
  nodes: Pick<NodeService, 'visibility' | 'visibleRow'>;
  now?: () => Date;
}

export function focusService({ store, nodes, now = () => new Date() }: FocusServiceDeps) {
  const deps = { store, nodes, now };
  return {
    set: (nodeId: string, pane: string, principal: Principal) =>
      setFocus(deps, nodeId, pane, principal),
    get: (nodeId: string, principal: Principal) => retrieveFocus(deps, nodeId, principal),
    list: (principal: Principal, filter: FocusFilter) => listFocuses(deps, principal, filter),
    delete: (nodeId: string, principal: Principal) => deleteFocus(deps, nodeId, principal),
  };
}

export type FocusService = ReturnType<typeof focusService>;
