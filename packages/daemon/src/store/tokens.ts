import type { Db } from './db.ts';

export type TokenKind = 'owner' | 'app' | 'node';

export interface TokenRow {
  id: string;
  kind: TokenKind;
  hash: Uint8Array;
  app_id: string | null;
  /** A node token's node (`node_tokens`, migration 003); `null` for owner and app tokens. */
  node_id: string | null;
  /** JSON array text; `null` = everything (owner). */
  scopes: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export type NewTokenRow = Omit<TokenRow, 'revoked_at' | 'last_used_at' | 'node_id'> & {
  node_id?: string | null;
};

/** Token queries; prepared once per connection. */
export function tokenStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO tokens (id, kind, hash, app_id, scopes, created_at, expires_at)
       VALUES (:id, :kind, :hash, :app_id, :scopes, :created_at, :expires_at)`,
    ),
    bindNode: db.sqlite.prepare('INSERT INTO node_tokens (token_id, node_id) VALUES (?, ?)'),
    byHash: db.sqlite.prepare(
      `SELECT t.*, nt.node_id FROM tokens t LEFT JOIN node_tokens nt ON nt.token_id = t.id
       WHERE t.hash = ?`,
    ),
    live: db.sqlite.prepare(
      `SELECT t.*, nt.node_id FROM tokens t LEFT JOIN node_tokens nt ON nt.token_id = t.id
       WHERE t.revoked_at IS NULL`,
    ),
    byId: db.sqlite.prepare(
      `SELECT t.*, nt.node_id FROM tokens t LEFT JOIN node_tokens nt ON nt.token_id = t.id
       WHERE t.id = ?`,
    ),
    list: db.sqlite.prepare('SELECT * FROM tokens WHERE id > ? ORDER BY id LIMIT ?'),
    revoke: db.sqlite.prepare(
      'UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    ),
    touch: db.sqlite.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?'),
    revokeKind: db.sqlite.prepare(
      'UPDATE tokens SET revoked_at = ? WHERE kind = ? AND revoked_at IS NULL RETURNING *',
    ),
  };
  return {
    /** Inserts the token; a node token is bound to its node in the same statement group. */
    insert({ node_id, ...row }: NewTokenRow): void {
      q.insert.run({ ...row });
      if (node_id !== undefined && node_id !== null) q.bindNode.run(row.id, node_id);
    },
    byHash(hash: Uint8Array): TokenRow | undefined {
      return q.byHash.get(hash) as TokenRow | undefined;
    },
    /** Every token not revoked (expired ones included): the token service's cache at start. */
    live(): TokenRow[] {
      return q.live.all() as unknown as TokenRow[];
    },
    byId(id: string): TokenRow | undefined {
      return q.byId.get(id) as TokenRow | undefined;
    },
    /** Ordered by id (ULIDs sort by creation); `after` is the last id of the previous page. */
    list(after: string, limit: number): TokenRow[] {
      return q.list.all(after, limit) as unknown as TokenRow[];
    },
    revoke(id: string, at: string): boolean {
      return q.revoke.run(at, id).changes > 0;
    },
    /** Revokes every live token of `kind`; returns the revoked rows. */
    revokeKind(kind: TokenKind, at: string): TokenRow[] {
      return q.revokeKind.all(at, kind) as unknown as TokenRow[];
    },
    touch(id: string, at: string): void {
      q.touch.run(at, id);
    },
  };
}

export type TokenStore = ReturnType<typeof tokenStore>;
