import type { Db } from './db.ts';

export interface EventRow {
  seq: number;
  kind: string;
  subject: string | null;
  payload: string;
  created_at: string;
}

export interface EventQuery {
  /** Only events with a larger seq. */
  after: number;
  limit: number;
  kinds?: readonly string[] | undefined;
}

export function eventStore(db: Db) {
  const insert = db.sqlite.prepare(
    'INSERT INTO events (kind, subject, payload, created_at) VALUES (?, ?, ?, ?) RETURNING *',
  );
  const page = db.sqlite.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
  const pageOfKinds = db.sqlite.prepare(
    `SELECT * FROM events WHERE seq > ? AND kind IN (SELECT value FROM json_each(?))
     ORDER BY seq LIMIT ?`,
  );
  const last = db.sqlite.prepare('SELECT coalesce(max(seq), 0) AS seq FROM events');
  return {
    /** Call inside `db.transaction` together with the write the event records. */
    insert(kind: string, subject: string | null, payload: unknown, at: string): EventRow {
      return insert.get(kind, subject, JSON.stringify(payload), at) as unknown as EventRow;
    },
    list({ after, limit, kinds }: EventQuery): EventRow[] {
      const rows =
        kinds === undefined || kinds.length === 0
          ? page.all(after, limit)
          : pageOfKinds.all(after, JSON.stringify(kinds), limit);
      return rows as unknown as EventRow[];
    },
    lastSeq(): number {
      return (last.get() as { seq: number }).seq;
    },
  };
}

export type EventStore = ReturnType<typeof eventStore>;
