/**
 * Crons (migration 006). Rows come back parsed (the task as an object, written back as JSON
 * here); they answer as the protocol's `Cron` DTO through `toCron`; the creator's token stays in
 * the row, never in the DTO.
 */
import type { StatementSync } from 'node:sqlite';
import type { Cron } from '@svc/protocol';
import { type Sight, sightFilter } from '../access/visibility.ts';
import type { Db } from '../store/db.ts';

export type { Cron };

export interface CronRow {
  id: string;
  name: string;
  schedule: string;
  timezone: string;
  /** The root node's create body each fire uses. */
  task: Cron['task'];
  state: Cron['state'];
  missed: Cron['missed'];
  overlap: Cron['overlap'];
  next_run_at: string | null;
  last_run_at: string | null;
  last_node_id: string | null;
  fire_count: number;
  app_id: string | null;
  creator_kind: 'owner' | 'app';
  creator_token_id: string;
  created_at: string;
  updated_at: string;
}

/** The row as SQLite holds it: the task is JSON text. */
type StoredCron = Omit<CronRow, 'task'> & { task: string };

const parsed = (row: StoredCron): CronRow => ({ ...row, task: JSON.parse(row.task) });
const parsedAll = (rows: unknown[]) => (rows as StoredCron[]).map(parsed);

export interface CronFilter {
  /** Whose crons: a list shows only what this sight sees. */
  sight: Sight;
  state?: Cron['state'] | undefined;
  before?: string | undefined;
  limit: number;
}

export function cronStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO crons (id, name, schedule, timezone, task, state, missed, overlap, next_run_at,
         last_run_at, last_node_id, fire_count, app_id, creator_kind, creator_token_id,
         created_at, updated_at)
       VALUES (:id, :name, :schedule, :timezone, :task, :state, :missed, :overlap, :next_run_at,
         :last_run_at, :last_node_id, :fire_count, :app_id, :creator_kind, :creator_token_id,
         :created_at, :updated_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM crons WHERE id = ?'),
    setSchedule: db.sqlite.prepare(
      'UPDATE crons SET state = ?, next_run_at = ?, updated_at = ? WHERE id = ?',
    ),
    // The claim: only the writer that still sees `next_run_at` at the scheduled time moves it.
    claim: db.sqlite.prepare(
      `UPDATE crons SET next_run_at = :next, last_run_at = :scheduled,
         fire_count = fire_count + 1, updated_at = :at
       WHERE id = :id AND state = 'active' AND next_run_at = :scheduled`,
    ),
    advance: db.sqlite.prepare(
      `UPDATE crons SET next_run_at = :next, updated_at = :at
       WHERE id = :id AND state = 'active' AND next_run_at IS :from`,
    ),
    manualFire: db.sqlite.prepare(
      `UPDATE crons SET last_run_at = ?, fire_count = fire_count + 1, updated_at = ?
       WHERE id = ?`,
    ),
    setLastNode: db.sqlite.prepare('UPDATE crons SET last_node_id = ? WHERE id = ?'),
    due: db.sqlite.prepare(
      `SELECT * FROM crons WHERE state = 'active' AND next_run_at IS NOT NULL
         AND next_run_at <= ? ORDER BY next_run_at, id`,
    ),
    ahead: db.sqlite.prepare(
      `SELECT * FROM crons WHERE state = 'active' AND next_run_at > ? ORDER BY next_run_at, id`,
    ),
    soonest: db.sqlite.prepare(
      `SELECT min(next_run_at) AS at FROM crons
       WHERE state = 'active' AND next_run_at IS NOT NULL`,
    ),
    delete: db.sqlite.prepare('DELETE FROM crons WHERE id = ?'),
  };
  const lists = new Map<string, StatementSync>();
  return {
    insert(row: CronRow): void {
      q.insert.run({ ...row, task: JSON.stringify(row.task) });
    },
    get(id: string): CronRow | undefined {
      const row = q.get.get(id) as StoredCron | undefined;
      return row === undefined ? undefined : parsed(row);
    },
    /** Newest first. */
    list(f: CronFilter): CronRow[] {
      const seen = sightFilter(f.sight, { app: 'app_id' });
      // The sight's condition is built from column names this store gives, never a caller's.
      const sql = `SELECT * FROM crons
        WHERE ${seen.sql}
          AND (? IS NULL OR state = ?)
          AND (? IS NULL OR id < ?)
        ORDER BY id DESC LIMIT ?`;
      const state = f.state ?? null;
      const before = f.before ?? null;
      // A sight has few shapes (everything, one app, nothing): one statement for each.
      const list = lists.get(sql) ?? db.sqlite.prepare(sql);
      lists.set(sql, list);
      return parsedAll(list.all(...seen.params, state, state, before, before, f.limit));
    },
    setSchedule(id: string, state: Cron['state'], nextRunAt: string | null, at: string): void {
      q.setSchedule.run(state, nextRunAt, at, id);
    },
    /** Takes the fire of `scheduled`; false when it was taken (or the cron changed) already. */
    claim(id: string, scheduled: string, next: string | null, at: string): boolean {
      return q.claim.run({ id, scheduled, next, at }).changes === 1;
    },
    /** Moves `next_run_at` on from `from` without a fire; false when it moved already. */
    advance(id: string, from: string | null, next: string | null, at: string): boolean {
      return q.advance.run({ id, from, next, at }).changes === 1;
    },
    manualFire(id: string, at: string): void {
      q.manualFire.run(at, at, id);
    },
    setLastNode(id: string, nodeId: string | null): void {
      q.setLastNode.run(nodeId, id);
    },
    /** Active crons whose `next_run_at` is at or before `at`, soonest first. */
    due(at: string): CronRow[] {
      return parsedAll(q.due.all(at));
    },
    /** Active crons whose `next_run_at` is after `at`. */
    ahead(at: string): CronRow[] {
      return parsedAll(q.ahead.all(at));
    },
    soonest(): string | null {
      return (q.soonest.get() as { at: string | null }).at;
    },
    delete(id: string): void {
      q.delete.run(id);
    },
  };
}

export type CronStore = ReturnType<typeof cronStore>;

export function toCron(row: CronRow): Cron {
  return {
    id: row.id,
    name: row.name,
    schedule: row.schedule,
    timezone: row.timezone,
    task: row.task,
    state: row.state,
    missed: row.missed,
    overlap: row.overlap,
    next_run_at: row.next_run_at,
    last_run_at: row.last_run_at,
    last_node_id: row.last_node_id,
    fire_count: row.fire_count,
    app_id: row.app_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
