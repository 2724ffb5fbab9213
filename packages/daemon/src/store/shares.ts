/**
 * Shares (migration 012): a host path an app may reach through the files routes, until
 * `expires_at`. Only live shares (not expired at `now`) are read back.
 */
import type { shareSchema } from '@svc/protocol';
import type { z } from 'zod';
import type { Db } from './db.ts';

export type Share = z.output<typeof shareSchema>;
export type ShareRow = Omit<Share, 'scope'>;

export interface ShareFilter {
  /** `undefined`: every app's (the owner); else those made to or by this app. */
  party?: string | undefined;
  /** Only those made to this app. */
  appId?: string | undefined;
  before?: string | undefined;
  now: string;
  limit: number;
}

const LIVE = '(expires_at IS NULL OR expires_at > :now)';

export function shareStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO shares (id, app_id, path, mode, created_by, created_at, expires_at)
       VALUES (:id, :app_id, :path, :mode, :created_by, :created_at, :expires_at)`,
    ),
    get: db.sqlite.prepare(`SELECT * FROM shares WHERE id = :id AND ${LIVE}`),
    list: db.sqlite.prepare(
      `SELECT * FROM shares
       WHERE ${LIVE}
         AND (:party IS NULL OR app_id = :party OR created_by = :party)
         AND (:app_id IS NULL OR app_id = :app_id)
         AND (:before IS NULL OR id < :before)
       ORDER BY id DESC LIMIT :limit`,
    ),
    grantedTo: db.sqlite.prepare(
      `SELECT * FROM shares WHERE app_id = :app_id AND ${LIVE} ORDER BY id`,
    ),
    delete: db.sqlite.prepare('DELETE FROM shares WHERE id = ?'),
    deleteExpired: db.sqlite.prepare(
      'DELETE FROM shares WHERE expires_at IS NOT NULL AND expires_at <= ?',
    ),
  };
  return {
    insert(row: ShareRow): void {
      q.insert.run({ ...row });
    },
    /** A live share; `undefined` when there is none or it expired. */
    get(id: string, now: string): ShareRow | undefined {
      return q.get.get({ id, now }) as ShareRow | undefined;
    },
    /** Live shares, newest first. */
    list(f: ShareFilter): ShareRow[] {
      return q.list.all({
        now: f.now,
        party: f.party ?? null,
        app_id: f.appId ?? null,
        before: f.before ?? null,
        limit: f.limit,
      }) as unknown as ShareRow[];
    },
    /** The live shares made to `appId`: what its tokens reach beyond their own scopes. */
    grantedTo(appId: string, now: string): ShareRow[] {
      return q.grantedTo.all({ app_id: appId, now }) as unknown as ShareRow[];
    },
    delete(id: string): void {
      q.delete.run(id);
    },
    /** Forgets shares that expired by `now`; they grant nothing already. */
    deleteExpired(now: string): number {
      return Number(q.deleteExpired.run(now).changes);
    },
  };
}

export type ShareStore = ReturnType<typeof shareStore>;
