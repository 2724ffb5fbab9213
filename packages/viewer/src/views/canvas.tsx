import { allPages } from '../api.ts';
import { Loaded, StateBadge } from '../parts.tsx';
import { href } from '../router.ts';
import type { SvcNode } from '../types.ts';
import { useLoad } from '../use-load.ts';

/** Children by parent id ('' for the roots), each list oldest first. */
function byParent(nodes: readonly SvcNode[]): Map<string, SvcNode[]> {
  const ids = new Set(nodes.map((n) => n.id));
  const children = new Map<string, SvcNode[]>();
  for (const node of nodes) {
    // A node whose parent is not in the list is shown as a root rather than lost.
    const key = node.parent_id !== null && ids.has(node.parent_id) ? node.parent_id : '';
    const list = children.get(key) ?? [];
    list.push(node);
    children.set(key, list);
  }
  for (const list of children.values())
    list.sort((a, b) => a.created_at.localeCompare(b.created_at));
  return children;
}

function Tree({ parent, tree }: { parent: string; tree: Map<string, SvcNode[]> }) {
  const list = tree.get(parent);
  if (list === undefined) return null;
  return (
    <ul class={parent === '' ? 'tree' : 'subtree'}>
      {list.map((node) => (
        <li key={node.id} data-node-id={node.id} data-state={node.state}>
          <div class="node-row">
            <StateBadge state={node.state} />
            <a href={href.node(node.id)}>{node.title || node.id}</a>
            <span class="muted">
              {node.usage.turns} {node.usage.turns === 1 ? 'turn' : 'turns'}
            </span>
            {node.state_reason !== null && <span class="muted reason">{node.state_reason}</span>}
          </div>
          <Tree parent={node.id} tree={tree} />
        </li>
      ))}
    </ul>
  );
}

/** Every node, as trees by root, refreshed whenever a node event arrives. */
export function Canvas({ version }: { version: number }) {
  const load = useLoad(() => allPages<SvcNode>('/v1/nodes'), [version]);
  return (
    <section aria-labelledby="canvas-title">
      <h2 id="canvas-title">Canvas</h2>
      <Loaded load={load}>
        {(nodes) =>
          nodes.length === 0 ? (
            <p>
              No nodes yet. Create one with <code>svc node create</code>.
            </p>
          ) : (
            <>
              <p class="muted">
                {nodes.length} {nodes.length === 1 ? 'node' : 'nodes'}
              </p>
              <Tree parent="" tree={byParent(nodes)} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
