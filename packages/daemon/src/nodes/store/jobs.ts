/** Jobs of a node: background commands and long tool calls its broker runs (`broker.jobs.record`). */
import type { Job } from '@svc/protocol';
import type { Db } from '../../store/db.ts';

export type { Job };
export type JobState = Job['state'];

const COLUMNS = 'id, node_id, kind, title, state, exit_code, started_at, finished_at';

/** A directive's `cancel_jobs`, read on each record a broker makes: one seek of `jobs_to_cancel`. */
export const TO_CANCEL = `SELECT id FROM jobs WHERE node_id = ? AND state = 'running'
  AND cancel_requested_at IS NOT NULL ORDER BY id`;

export function jobStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO jobs (id, node_id, kind, title, state, started_at)
       VALUES (:id, :node_id, :kind, :title, 'running', :started_at) RETURNING ${COLUMNS}`,
    ),
    get: db.sqlite.prepare(`SELECT ${COLUMNS} FROM jobs WHERE id = ? AND node_id = ?`),
    settle: db.sqlite.prepare(
      `UPDATE jobs SET state = :state, exit_code = :exit_code, finished_at = :finished_at
       WHERE id = :id AND node_id = :node_id AND state = 'running' RETURNING ${COLUMNS}`,
    ),
    list: db.sqlite.prepare(
      `SELECT ${COLUMNS} FROM jobs WHERE node_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    ),
    requestCancel: db.sqlite.prepare(
      `UPDATE jobs SET cancel_requested_at = coalesce(cancel_requested_at, ?)
       WHERE id = ? AND node_id = ? AND state = 'running'`,
    ),
    running: db.sqlite.prepare(`SELECT id FROM jobs WHERE node_id = ? AND state = 'running'`),
    runningNodes: db.sqlite.prepare(`SELECT DISTINCT node_id FROM jobs WHERE state = 'running'`),
    toCancel: db.sqlite.prepare(TO_CANCEL),
  };
  return {
    /** A new running job. Call in the transaction that records `node.job`. */
    insert(job: {
      id: string;
      node_id: string;
      kind: Job['kind'];
      title: string;
      started_at: string;
    }): Job {
      return q.insert.get({ ...job }) as unknown as Job;
    },
    get(nodeId: string, id: string): Job | undefined {
      return q.get.get(id, nodeId) as Job | undefined;
    },
    /** Ends a running job; `undefined` when it is unknown or already ended. */
    settle(
      nodeId: string,
      id: string,
      end: { state: Exclude<JobState, 'running'>; exit_code: number | null; finished_at: string },
    ): Job | undefined {
      return q.settle.get({ id, node_id: nodeId, ...end }) as Job | undefined;
    },
    /** Newest first; `before` is the previous page's last id (a job id sorts by creation). */
    list(nodeId: string, before: string, limit: number): Job[] {
      return q.list.all(nodeId, before, limit) as unknown as Job[];
    },
    /** Asks the node's broker to stop a running job (`nodes.jobs.cancel`); repeats are no-ops. */
    requestCancel(nodeId: string, id: string, at: string): void {
      q.requestCancel.run(at, id, nodeId);
    },
    /** The nodes with a running job. */
    runningNodes(): string[] {
      return (q.runningNodes.all() as { node_id: string }[]).map((r) => r.node_id);
    },
    /** The node's running jobs. */
    running(nodeId: string): string[] {
      return (q.running.all(nodeId) as { id: string }[]).map((r) => r.id);
    },
    /** Running jobs somebody asked to stop: a directive's `cancel_jobs`. */
    toCancel(nodeId: string): string[] {
      return (q.toCancel.all(nodeId) as { id: string }[]).map((r) => r.id);
    },
  };
}

export type JobStore = ReturnType<typeof jobStore>;
