/**
 * The events of one node, a subtree or a run's tree: rows of the one event log whose subject is
 * in the set, read by seq so a stream resumes exactly where it left off. The set is resolved on
 * every read, so a child spawned while a stream is open joins it.
 */
import type { Db } from '../../store/db.ts';
import type { EventRow } from '../../store/events.ts';

export type EventSubjects =
  | { node: string }
  /** The node and every node below it. */
  | { subtree: string }
  /** A run: its own events and those of every node of its tree. */
  | { run: string; root: string };

const SUBTREE = `WITH RECURSIVE sub(id) AS (SELECT :id UNION ALL
  SELECT n.id FROM nodes n JOIN sub ON n.parent_id = sub.id)`;
const KINDS = '(:kinds IS NULL OR kind IN (SELECT value FROM json_each(:kinds)))';

export function nodeEventStore(db: Db) {
  const q = {
    node: db.sqlite.prepare(
      `SELECT * FROM events WHERE subject = :id AND seq > :after AND ${KINDS} ORDER BY seq LIMIT :limit`,
    ),
    subtree: db.sqlite.prepare(
      `${SUBTREE} SELECT * FROM events WHERE subject IN (SELECT id FROM sub) AND seq > :after
       AND ${KINDS} ORDER BY seq LIMIT :limit`,
    ),
    run: db.sqlite.prepare(
      `SELECT * FROM events WHERE (subject = :run OR subject IN (SELECT id FROM nodes WHERE root_id = :root))
       AND seq > :after AND ${KINDS} ORDER BY seq LIMIT :limit`,
    ),
    deleteRun: db.sqlite.prepare(
      'DELETE FROM events WHERE subject = :run OR subject IN (SELECT id FROM nodes WHERE root_id = :root)',
    ),
  };
  return {
    /** Up to `limit` events of `subjects` after seq `after`, in seq order. */
    page(
      subjects: EventSubjects,
      after: number,
      limit: number,
      kinds?: readonly string[],
    ): EventRow[] {
      const common = { after, limit, kinds: kinds === undefined ? null : JSON.stringify(kinds) };
      const rows =
        'run' in subjects
          ? q.run.all({ ...common, run: subjects.run, root: subjects.root })
          : 'subtree' in subjects
            ? q.subtree.all({ ...common, id: subjects.subtree })
            : q.node.all({ ...common, id: subjects.node });
      return rows as unknown as EventRow[];
    },
    /** Deletes a run's events and its tree's (with the run: `runs.delete`). */
    deleteRun(runId: string, rootId: string): void {
      q.deleteRun.run({ run: runId, root: rootId });
    },
  };
}

export type NodeEventStore = ReturnType<typeof nodeEventStore>;
