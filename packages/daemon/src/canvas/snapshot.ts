/**
 * The canvas's snapshot (docs/api-v1.md "Canvas"): the visible nodes at one event seq, a view of
 * the nodes as `nodes.list` is, seen by the nodes resource's read rule (`tree-read`).
 */
import { type canvasNodeSchema, type canvasSnapshotSchema, TASK_SUMMARY_MAX } from '@svc/protocol';
import type { z } from 'zod';
import type { NodeService } from '../nodes/service.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';

export type CanvasNode = z.output<typeof canvasNodeSchema>;
export type CanvasSnapshot = z.output<typeof canvasSnapshotSchema>;

/** The visible nodes and the last event seq, read in one transaction. */
export function snapshot(
  deps: {
    store: Pick<Store, 'canvas' | 'events' | 'nodes'>;
    nodes: Pick<NodeService, 'readVisibility' | 'readableRow'>;
  },
  principal: Principal,
  q: { limit: number; rootId?: string | undefined },
): CanvasSnapshot {
  const { store, nodes } = deps;
  if (q.rootId !== undefined) nodes.readableRow(q.rootId, principal, 'root_id');
  const vis = nodes.readVisibility(principal);
  return store.canvas.read((): CanvasSnapshot => {
    const seq = store.events.lastSeq();
    const rows = store.nodes.list(vis, { rootId: q.rootId, limit: q.limit + 1 });
    return {
      seq,
      nodes: rows.slice(0, q.limit).map(toCanvasNode),
      truncated: rows.length > q.limit,
    };
  });
}

function toCanvasNode(row: NodeRow): CanvasNode {
  const node = toNode(row);
  return {
    id: node.id,
    parent_id: node.parent_id,
    root_id: node.root_id,
    run_id: node.run_id,
    app_id: node.app_id,
    profile: node.profile,
    title: node.title,
    task_summary: node.task.slice(0, TASK_SUMMARY_MAX),
    state: node.state,
    state_reason: node.state_reason,
    waiting_on: node.waiting_on,
    model: node.model,
    usage: node.usage,
    created_at: node.created_at,
    updated_at: node.updated_at,
    finished_at: node.finished_at,
  };
}
