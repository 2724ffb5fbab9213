/**
 * Runs (migration 003): an app's handle on a root node it started. A run row holds only what is
 * its own (title, owner app, the app's grant); state, usage and outcome are read from its tree.
 */
import type { Db } from '../store/db.ts';
import { fromJson, toJson } from '../store/json.ts';

export interface RunRow {
  id: string;
  app_id: string | null;
  node_id: string;
  title: string;
  /** The starting app's scopes, a ceiling for every node of the tree; `null`: the owner's. */
  grant_scopes: readonly string[] | null;
  created_at: string;
  updated_at: string;
}

export interface RunFilter {
  /** `undefined` = every app's (owner's `runs.listAll`); `null` = the owner's own. */
  appId?: string | null | undefined;
  /** Only this run (a node token sees its own tree's run alone); `null` = none. */
  runId?: string | null | undefined;
  states?: readonly string[] | undefined;
  before?: string | undefined;
  limit: number;
}

type StoredRun = Omit<RunRow, 'grant_scopes'> & { grant_scopes: string | null };

const parseRun = (r: StoredRun): RunRow => ({
  ...r,
  grant_scopes: fromJson<string[]>(r.grant_scopes),
});

export function runStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO runs (id, app_id, node_id, title, grant_scopes, created_at, updated_at)
       VALUES (:id, :app_id, :node_id, :title, :grant_scopes, :created_at, :updated_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM runs WHERE id = ?'),
    rename: db.sqlite.prepare('UPDATE runs SET title = ?, updated_at = ? WHERE id = ?'),
    list: db.sqlite.prepare(
      `SELECT r.* FROM runs r JOIN nodes n ON n.id = r.node_id
       WHERE (:any_app = 1 OR r.app_id IS :app_id)
         AND (:any_run = 1 OR r.id IS :run_id)
         AND (:states IS NULL OR n.state IN (SELECT value FROM json_each(:states)))
         AND (:before IS NULL OR r.id < :before)
       ORDER BY r.id DESC LIMIT :limit`,
    ),
    delete: db.sqlite.prepare('DELETE FROM runs WHERE id = ?'),
  };
  return {
    insert(row: RunRow): void {
      q.insert.run({ ...row, grant_scopes: toJson(row.grant_scopes) });
    },
    get(id: string): RunRow | undefined {
      const row = q.get.get(id) as StoredRun | undefined;
      return row === undefined ? undefined : parseRun(row);
    },
    rename(id: string, title: string, at: string): void {
      q.rename.run(title, at, id);
    },
    /** Newest first. */
    list(f: RunFilter): RunRow[] {
      const rows = q.list.all({
        any_app: f.appId === undefined ? 1 : 0,
        app_id: f.appId ?? null,
        any_run: f.runId === undefined ? 1 : 0,
        run_id: f.runId ?? null,
        states: f.states === undefined ? null : JSON.stringify(f.states),
        before: f.before ?? null,
        limit: f.limit,
      }) as unknown as StoredRun[];
      return rows.map(parseRun);
    },
    delete(id: string): void {
      q.delete.run(id);
    },
  };
}

export type RunStore = ReturnType<typeof runStore>;
