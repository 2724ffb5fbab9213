/**
 * Custom objects and their deliveries (migration 010). Rows come back parsed (the catalog and
 * the receiver are JSON columns, read and written here only) and answer as the protocol's DTO
 * through `toCustomObject`; the publish token's hash and the signing secret stay in the row,
 * never in a DTO.
 */
import type { StatementSync } from 'node:sqlite';
import type { CustomObject, ObjectReceiver } from '@svc/protocol';
import { type Sight, sightFilter } from '../access/visibility.ts';
import type { Db } from '../store/db.ts';
import type { EventRow } from '../store/events.ts';

export type { CustomObject, ObjectReceiver };
export type DeliveryState = 'pending' | 'delivered' | 'failed';
/** An object's events: name → {description, schema}. */
export type ObjectCatalog = CustomObject['events'];

export interface CustomObjectRow {
  id: string;
  name: string;
  description: string | null;
  events: ObjectCatalog;
  /** The receiver as registered. */
  receiver: ObjectReceiver;
  receiver_kind: ObjectReceiver['kind'];
  publish_hash: Uint8Array;
  signing_secret: string | null;
  app_id: string | null;
  created_at: string;
}

export interface DeliveryRow {
  id: string;
  object_id: string;
  seq: number;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A row as SQLite holds it: the catalog and the receiver as JSON text. */
type StoredObjectRow = Omit<CustomObjectRow, 'events' | 'receiver'> & {
  events: string;
  receiver: string;
};

export interface ObjectFilter {
  /** The objects of the apps it sees (the owner's: every one). */
  sight: Sight;
  before?: string | undefined;
  limit: number;
}

function parsed(row: StoredObjectRow | undefined): CustomObjectRow | undefined {
  if (row === undefined) return undefined;
  return {
    ...row,
    events: JSON.parse(row.events) as ObjectCatalog,
    receiver: JSON.parse(row.receiver) as ObjectReceiver,
  };
}

export function customObjectStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO custom_objects (id, name, description, events, receiver, receiver_kind,
         publish_hash, signing_secret, app_id, created_at)
       VALUES (:id, :name, :description, :events, :receiver, :receiver_kind, :publish_hash,
         :signing_secret, :app_id, :created_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM custom_objects WHERE id = ?'),
    byPublishHash: db.sqlite.prepare('SELECT id FROM custom_objects WHERE publish_hash = ?'),
    delete: db.sqlite.prepare('DELETE FROM custom_objects WHERE id = ?'),
    pendingCount: db.sqlite.prepare(
      `SELECT count(*) AS n FROM object_deliveries WHERE object_id = ? AND state = 'pending'`,
    ),
    insertDelivery: db.sqlite.prepare(
      `INSERT INTO object_deliveries (id, object_id, seq, state, attempts, next_attempt_at,
         last_error, created_at, updated_at)
       VALUES (:id, :object_id, :seq, :state, :attempts, :next_attempt_at, :last_error,
         :created_at, :updated_at)`,
    ),
    delivery: db.sqlite.prepare('SELECT * FROM object_deliveries WHERE id = ?'),
    // What a queue's reader gets after `after`: every pending delivery, and the others past
    // `cutoff` (the seq a reconnecting reader says it saw), in seq order.
    stream: db.sqlite.prepare(
      `SELECT e.* FROM object_deliveries d JOIN events e ON e.seq = d.seq
       WHERE d.object_id = :object_id AND d.seq > :after
         AND (d.state = 'pending' OR d.seq > :cutoff)
       ORDER BY d.seq LIMIT :limit`,
    ),
    event: db.sqlite.prepare('SELECT * FROM events WHERE seq = ?'),
    markDelivered: db.sqlite.prepare(
      `UPDATE object_deliveries SET state = 'delivered', next_attempt_at = NULL, updated_at = ?
       WHERE id = ? AND state = 'pending'`,
    ),
    startAttempt: db.sqlite.prepare(
      `UPDATE object_deliveries SET attempts = attempts + 1, next_attempt_at = NULL, updated_at = ?
       WHERE id = ? AND state = 'pending' AND next_attempt_at IS NOT NULL RETURNING *`,
    ),
    retryLater: db.sqlite.prepare(
      `UPDATE object_deliveries SET next_attempt_at = ?, last_error = ?, updated_at = ?
       WHERE id = ? AND state = 'pending'`,
    ),
    fail: db.sqlite.prepare(
      `UPDATE object_deliveries SET state = 'failed', next_attempt_at = NULL, last_error = ?,
         updated_at = ?
       WHERE id = ? AND state = 'pending'`,
    ),
    due: db.sqlite.prepare(
      `SELECT * FROM object_deliveries
       WHERE state = 'pending' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ?
       ORDER BY next_attempt_at, seq LIMIT ?`,
    ),
    soonest: db.sqlite.prepare(
      `SELECT min(next_attempt_at) AS at FROM object_deliveries
       WHERE state = 'pending' AND next_attempt_at IS NOT NULL`,
    ),
    // Attempts a stopped daemon left in flight: due again now.
    resumeInFlight: db.sqlite.prepare(
      `UPDATE object_deliveries SET next_attempt_at = :now, updated_at = :now
       WHERE state = 'pending' AND next_attempt_at IS NULL
         AND object_id IN (SELECT id FROM custom_objects WHERE receiver_kind != 'queue')`,
    ),
  };
  /** The list query by the SQL of its sight (one per count of apps seen, so a few). */
  const lists = new Map<string, StatementSync>();
  function listQuery(sight: Sight): { query: StatementSync; params: string[] } {
    const seen = sightFilter(sight, { app: 'app_id' });
    const sql = `SELECT * FROM custom_objects
       WHERE ${seen.sql} AND (:before IS NULL OR id < :before)
       ORDER BY id DESC LIMIT :limit`;
    let query = lists.get(sql);
    if (query === undefined) {
      query = db.sqlite.prepare(sql);
      lists.set(sql, query);
    }
    return { query, params: seen.params };
  }

  return {
    insert(row: CustomObjectRow): void {
      q.insert.run({
        ...row,
        events: JSON.stringify(row.events),
        receiver: JSON.stringify(row.receiver),
      });
    },
    get(id: string): CustomObjectRow | undefined {
      return parsed(q.get.get(id) as StoredObjectRow | undefined);
    },
    /** The id of the object whose publish token hashes to `hash`. */
    idByPublishHash(hash: Uint8Array): string | undefined {
      return (q.byPublishHash.get(hash) as { id: string } | undefined)?.id;
    },
    /** Newest first. */
    list(f: ObjectFilter): CustomObjectRow[] {
      const { query, params } = listQuery(f.sight);
      const rows = query.all({ before: f.before ?? null, limit: f.limit }, ...params);
      return (rows as unknown as StoredObjectRow[]).map((row) => parsed(row)!);
    },
    /** Deletes the object and (cascade) its deliveries. */
    delete(id: string): boolean {
      return q.delete.run(id).changes === 1;
    },
    pendingCount(id: string): number {
      return (q.pendingCount.get(id) as { n: number }).n;
    },
    insertDelivery(row: DeliveryRow): void {
      q.insertDelivery.run({ ...row });
    },
    delivery(id: string): DeliveryRow | undefined {
      return q.delivery.get(id) as DeliveryRow | undefined;
    },
    /** The `object.event` rows a queue reader is sent next (see the query). */
    streamPage(objectId: string, after: number, cutoff: number, limit: number): EventRow[] {
      return q.stream.all({
        object_id: objectId,
        after,
        cutoff,
        limit,
      }) as unknown as EventRow[];
    },
    event(seq: number): EventRow | undefined {
      return q.event.get(seq) as EventRow | undefined;
    },
    /** False when it was not pending (delivered or failed already, or gone). */
    markDelivered(id: string, at: string): boolean {
      return q.markDelivered.run(at, id).changes === 1;
    },
    /** Takes a due delivery for one attempt; `undefined` when another took it or it ended. */
    startAttempt(id: string, at: string): DeliveryRow | undefined {
      return q.startAttempt.get(at, id) as DeliveryRow | undefined;
    },
    retryLater(id: string, next: string, error: string, at: string): boolean {
      return q.retryLater.run(next, error, at, id).changes === 1;
    },
    fail(id: string, error: string, at: string): boolean {
      return q.fail.run(error, at, id).changes === 1;
    },
    /** Pending url and argv deliveries due at `at`, soonest first. */
    due(at: string, limit: number): DeliveryRow[] {
      return q.due.all(at, limit) as unknown as DeliveryRow[];
    },
    soonest(): string | null {
      return (q.soonest.get() as { at: string | null }).at;
    },
    resumeInFlight(now: string): number {
      return Number(q.resumeInFlight.run({ now }).changes);
    },
  };
}

export type CustomObjectStore = ReturnType<typeof customObjectStore>;

export function toCustomObject(row: CustomObjectRow, pending: number): CustomObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    events: row.events,
    receiver: row.receiver,
    app_id: row.app_id,
    pending_deliveries: pending,
    created_at: row.created_at,
  };
}
