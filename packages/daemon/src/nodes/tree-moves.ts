/**
 * `nodes.promote` and `nodes.demote`: a node, with its subtree, moves to a tree of its own or
 * under another node, inside the grant of the run it lands in.
 */
import { checkScopes } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import { grantOf } from './ceiling.ts';
import { type NodeDeps, now } from './deps.ts';
import { runOfRoot } from './move.ts';
import type { Node, NodeRow } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, seenNode } from './visibility.ts';

type TreeDeps = Pick<NodeDeps, 'store' | 'events'>;

/** Detaches a node (and its subtree) into a tree of its own; a root is answered as it is. */
export function promoteNode(deps: TreeDeps, id: string, caller: Caller): Node {
  const { store, events } = deps;
  return store.db.transaction(() => {
    const row = seenNode(store, caller.sight, id);
    if (row.parent_id === null) return toNode(row);
    rehang(deps, row, null, row.id, null, now());
    events.record('node.updated', id, { node_id: id, changes: { parent_id: null, root_id: id } });
    return toNode(store.nodes.get(id)!);
  });
}

/** Attaches a node (and its subtree) under `parentId`: not itself nor a descendant. */
export function demoteNode(deps: TreeDeps, id: string, parentId: string, caller: Caller): Node {
  const { store, events } = deps;
  return store.db.transaction(() => {
    const row = seenNode(store, caller.sight, id);
    const parent = seenNode(store, caller.sight, parentId, 'parent_id');
    if (parent.id === row.id || store.nodes.descendants(row.id).some((d) => d.id === parent.id)) {
      throw new ApiError(
        'conflict',
        `${parentId} is ${id} or below it; a node cannot hang under itself`,
        { field: 'parent_id' },
      );
    }
    if (runOfRoot(row) !== null) {
      throw new ApiError(
        'conflict',
        `${id} is the root of run ${row.run_id}; a run keeps its root`,
        {
          field: 'id',
        },
      );
    }
    rehang(deps, row, parent.id, parent.root_id, parent.run_id, now());
    events.record('node.updated', id, {
      node_id: id,
      changes: { parent_id: parent.id, root_id: parent.root_id },
    });
    return toNode(store.nodes.get(id)!);
  });
}

/**
 * Every node of the subtree under `row` (itself included) moves to `rootId` and `runId`. Into a
 * run, every one must already lie inside its grant (create's check), else 403 `scope_missing`
 * and nothing moves. No list is narrowed here: a node's list never changes once made, and a
 * live broker holds a token with it; so a node with no list (`null`: everything) is refused.
 */
function rehang(
  deps: TreeDeps,
  row: NodeRow,
  parentId: string | null,
  rootId: string,
  runId: string | null,
  at: string,
): void {
  const subtree = [row, ...deps.store.nodes.descendants(row.id)];
  const grant = grantOf(deps.store, runId);
  for (const node of grant === null ? [] : subtree) {
    if (node.scopes === null) {
      throw new ApiError(
        'scope_missing',
        `node ${node.id} holds every scope (no list), which is outside the app's grant of run ${runId}`,
        { field: 'scopes', received: grant },
      );
    }
    checkScopes(undefined, node.scopes, grant);
  }
  for (const node of subtree) {
    if (node.id === row.id) node.parent_id = parentId;
    node.root_id = rootId;
    node.run_id = runId;
    node.updated_at = at;
    deps.store.nodes.save(node);
  }
}
