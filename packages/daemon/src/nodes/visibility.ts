/**
 * Who sees which node (docs/nodes.md "Visibility"): the route table's `tree` rule for writes and
 * `tree-read` for reads (`access/visibility.ts`), turned into the nodes' SQL rule (`VISIBLE`),
 * which also sees the nodes below an app's own in a tree another made.
 */
import { type Sight, sightOf } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { NodeRow, Visibility } from './store/nodes.ts';

/** Who calls a node operation, and what its route's rule lets it see. */
export interface Caller {
  principal: Principal;
  sight: Sight;
}

/** A caller outside a request (a cron, a service): its sight by `rule`, as the route's would be. */
export function callerOf(
  store: Store,
  principal: Principal,
  rule: 'tree' | 'tree-read' = 'tree',
): Caller {
  return {
    principal,
    sight: sightOf(rule, principal, (id) => store.nodes.get(id)?.root_id ?? null),
  };
}

/**
 * The nodes' SQL rule for a sight of the `tree` rules: the owner all; a node token its tree (a
 * token whose node is gone sees nothing: the empty root id matches no node); an app its apps'.
 */
export function nodeVisibility(sight: Sight): Visibility {
  if (sight.all) return { kind: 'all' };
  if (sight.rootId !== null) return { kind: 'tree', rootId: sight.rootId };
  if (sight.apps.length === 0) return { kind: 'tree', rootId: '' };
  const [appId = '', ...readable] = sight.apps;
  return readable.length === 0 ? { kind: 'app', appId } : { kind: 'app', appId, readable };
}

/** The node if `sight` sees it; else 404, as if it did not exist. */
export function seenNode(store: Store, sight: Sight, id: string, field = 'id'): NodeRow {
  const row = store.nodes.visible(id, nodeVisibility(sight));
  if (row === undefined) throw new ApiError('not_found', `no node ${id}`, { field });
  return row;
}
