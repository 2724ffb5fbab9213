import type { Db } from '../store/db.ts';

export interface ViewerSessionRow {
  hash: Uint8Array;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Viewer session queries; prepared once per connection. */
export function viewerSessionStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      'INSERT INTO viewer_sessions (hash, created_at, expires_at) VALUES (?, ?, ?)',
    ),
    byHash: db.sqlite.prepare('SELECT * FROM viewer_sessions WHERE hash = ?'),
    revoke: db.sqlite.prepare(
      'UPDATE viewer_sessions SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL',
    ),
    // Sessions long over are of no use to anyone: they are dropped when a new one starts.
    prune: db.sqlite.prepare('DELETE FROM viewer_sessions WHERE expires_at < ?'),
  };
  return {
    insert(row: Omit<ViewerSessionRow, 'revoked_at'>): void {
      q.insert.run(row.hash, row.created_at, row.expires_at);
    },
    byHash(hash: Uint8Array): ViewerSessionRow | undefined {
      return q.byHash.get(hash) as ViewerSessionRow | undefined;
    },
    revoke(hash: Uint8Array, at: string): boolean {
      return q.revoke.run(at, hash).changes > 0;
    },
    prune(before: string): void {
      q.prune.run(before);
    },
  };
}
