/**
 * Shares (migrations 012, 014): a host path an app may reach through the files routes, until
 * `expires_at`. Only live shares are read back: not expired at `now`, and, when an app made one,
 * while the token that made it lives (not revoked, not expired), so a share never outlasts its
 * creator's own access. The owner's shares (`created_by` null) need no token.
 */
import type { StatementSync } from 'node:sqlite';
import type { Share } from '@svc/protocol';
import { type Sight, sightFilter } from '../access/visibility.ts';
import type { Db } from '../store/db.ts';

export type { Share };
export type ShareRow = Omit<Share, 'scope'>;

export interface ShareFilter {
  /** Those made to or by an app the sight sees (the owner's: every one). */
  sight: Sight;
  /** Only those made to this app. */
  appId?: string | undefined;
  before?: string | undefined;
  now: string;
  limit: number;
}

/** The columns of a `ShareRow`; the creating token's id stays inside the store. */
const COLUMNS = 's.id, s.app_id, s.path, s.mode, s.created_by, s.created_at, s.expires_at';

/** The share `s` is live at `:now` (an app's made before migration 014 has no token: never). */
const LIVE = `(s.expires_at IS NULL OR s.expires_at > :now)
  AND (s.created_by IS NULL OR EXISTS (
    SELECT 1 FROM tokens t
    WHERE t.id = s.creator_token_id AND t.revoked_at IS NULL
      AND (t.expires_at IS NULL OR t.expires_at > :now)))`;

export function shareStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO shares (id, app_id, path, mode, created_by, creator_token_id, created_at,
         expires_at)
       VALUES (:id, :app_id, :path, :mode, :created_by, :creator_token_id, :created_at,
         :expires_at)`,
    ),
    get: db.sqlite.prepare(`SELECT ${COLUMNS} FROM shares s WHERE s.id = :id AND ${LIVE}`),
    grantedTo: db.sqlite.prepare(
      `SELECT ${COLUMNS} FROM shares s WHERE s.app_id = :app_id AND ${LIVE} ORDER BY s.id`,
    ),
    delete: db.sqlite.prepare('DELETE FROM shares WHERE id = ?'),
    deleteDead: db.sqlite.prepare(`DELETE FROM shares AS s WHERE NOT (${LIVE})`),
  };
  /** The list query by the SQL of its sight (one per count of apps seen, so a few). */
  const lists = new Map<string, StatementSync>();
  function listQuery(sight: Sight): { query: StatementSync; params: string[] } {
    const toApp = sightFilter(sight, { app: 's.app_id' });
    const byApp = sightFilter(sight, { app: 's.created_by' });
    const sql = `SELECT ${COLUMNS} FROM shares s
       WHERE ${LIVE}
         AND (${toApp.sql} OR ${byApp.sql})
         AND (:app_id IS NULL OR s.app_id = :app_id)
         AND (:before IS NULL OR s.id < :before)
       ORDER BY s.id DESC LIMIT :limit`;
    let query = lists.get(sql);
    if (query === undefined) {
      query = db.sqlite.prepare(sql);
      lists.set(sql, query);
    }
    return { query, params: [...toApp.params, ...byApp.params] };
  }

  return {
    /** `creatorTokenId`: the app token that made it; `null` for the owner's. */
    insert(row: ShareRow, creatorTokenId: string | null): void {
      q.insert.run({ ...row, creator_token_id: creatorTokenId });
    },
    /** A live share; `undefined` when there is none or it expired. */
    get(id: string, now: string): ShareRow | undefined {
      return q.get.get({ id, now }) as ShareRow | undefined;
    },
    /** Live shares, newest first. */
    list(f: ShareFilter): ShareRow[] {
      const { query, params } = listQuery(f.sight);
      const named = {
        now: f.now,
        app_id: f.appId ?? null,
        before: f.before ?? null,
        limit: f.limit,
      };
      return query.all(named, ...params) as unknown as ShareRow[];
    },
    /** The live shares made to `appId`: what its tokens reach beyond their own scopes. */
    grantedTo(appId: string, now: string): ShareRow[] {
      return q.grantedTo.all({ app_id: appId, now }) as unknown as ShareRow[];
    },
    delete(id: string): void {
      q.delete.run(id);
    },
    /**
     * Forgets the shares dead at `now` (expired, or their creating token revoked or expired);
     * they grant nothing already, and neither a revoked nor an expired token comes back.
     */
    deleteDead(now: string): number {
      return Number(q.deleteDead.run({ now }).changes);
    },
  };
}

export type ShareStore = ReturnType<typeof shareStore>;
