/**
 * Questions (migration 012): the binding of an app-facing `q_…` to the human request a node of a
 * run asked. The question's content, state and answer are read from the request.
 */
import type { Db } from '../store/db.ts';

export interface QuestionRow {
  id: string;
  request_id: string;
  run_id: string;
  node_id: string;
  app_id: string | null;
  created_at: string;
}

export function questionStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO questions (id, request_id, run_id, node_id, app_id, created_at)
       VALUES (:id, :request_id, :run_id, :node_id, :app_id, :created_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM questions WHERE id = ?'),
    deleteNodes: db.sqlite.prepare(
      'DELETE FROM questions WHERE node_id IN (SELECT value FROM json_each(?))',
    ),
  };
  return {
    insert(row: QuestionRow): void {
      q.insert.run({ ...row });
    },
    get(id: string): QuestionRow | undefined {
      return q.get.get(id) as QuestionRow | undefined;
    },
    /** The questions the nodes asked, removed with their tree. */
    deleteNodes(nodeIds: readonly string[]): number {
      return Number(q.deleteNodes.run(JSON.stringify(nodeIds)).changes);
    },
  };
}

export type QuestionStore = ReturnType<typeof questionStore>;
