/** Progress reports of a node (`broker.reports.create`), numbered per node, oldest first. */
import type { Report } from '@svc/protocol';
import type { Db } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';

export type { Report };

interface ReportRow {
  node_id: string;
  seq: number;
  text: string;
  data: string | null;
  created_at: string;
}

export function reportStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO reports (node_id, seq, text, data, created_at)
       VALUES (:node_id, (SELECT coalesce(max(seq), 0) + 1 FROM reports WHERE node_id = :node_id),
         :text, :data, :created_at)
       RETURNING *`,
    ),
    list: db.sqlite.prepare(
      'SELECT * FROM reports WHERE node_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
  };
  return {
    /** Call in the transaction that records `node.report`. */
    insert(nodeId: string, text: string, data: unknown, at: string): Report {
      const row = q.insert.get({ node_id: nodeId, text, data: toJson(data), created_at: at });
      return toReport(row as unknown as ReportRow);
    },
    /** Oldest first, after seq `after`. */
    list(nodeId: string, after: number, limit: number): Report[] {
      return (q.list.all(nodeId, after, limit) as unknown as ReportRow[]).map(toReport);
    },
  };
}

export type ReportStore = ReturnType<typeof reportStore>;

function toReport(row: ReportRow): Report {
  return {
    seq: row.seq,
    node_id: row.node_id,
    text: row.text,
    data: fromJson(row.data),
    created_at: row.created_at,
  };
}
