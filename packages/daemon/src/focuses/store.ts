/**
 * Focuses (migration 015): one pane per node. Reads filter by the nodes visibility rule
 * (`VISIBLE`), so a caller lists only the focuses of nodes it sees.
 */
import type { Focus } from '@svc/protocol';
import { VISIBLE, type Visibility, visibilityParams } from '../nodes/store/nodes.ts';
import type { Db } from '../store/db.ts';

export type { Focus };

export interface FocusFilter {
  pane?: string | undefined;
  /** Newest node first: only node ids before this one. */
  before?: string | undefined;
  limit: number;
}

export function focusStore(db: Db) {
  const q = {
    // Setting again keeps `created_at`: the focus is the same, its pane moved.
    upsert: db.sqlite.prepare(
      `INSERT INTO focuses (node_id, pane, created_at, updated_at)
       VALUES (:node_id, :pane, :at, :at)
       ON CONFLICT (node_id) DO UPDATE SET pane = excluded.pane, updated_at = excluded.updated_at
       RETURNING node_id, pane, created_at, updated_at`,
    ),
    get: db.sqlite.prepare(
      'SELECT node_id, pane, created_at, updated_at FROM focuses WHERE node_id = ?',
    ),
    list: db.sqlite.prepare(
      `SELECT f.node_id, f.pane, f.created_at, f.updated_at
       FROM focuses f JOIN nodes n ON n.id = f.node_id
       WHERE ${VISIBLE}
         AND (:pane IS NULL OR f.pane = :pane)
         AND (:before IS NULL OR f.node_id < :before)
       ORDER BY f.node_id DESC LIMIT :limit`,
    ),
    delete: db.sqlite.prepare('DELETE FROM focuses WHERE node_id = ?'),
  };
  return {
    set(nodeId: string, pane: string, at: string): Focus {
      return q.upsert.get({ node_id: nodeId, pane, at }) as Focus;
    },
    get(nodeId: string): Focus | undefined {
      return q.get.get(nodeId) as Focus | undefined;
    },
    /** The focuses of the nodes `vis` sees, newest node first. */
    list(vis: Visibility, f: FocusFilter): Focus[] {
      return q.list.all({
        ...visibilityParams(vis),
        pane: f.pane ?? null,
        before: f.before ?? null,
        limit: f.limit,
      }) as unknown as Focus[];
    },
    delete(nodeId: string): void {
      q.delete.run(nodeId);
    },
  };
}

export type FocusStore = ReturnType<typeof focusStore>;
