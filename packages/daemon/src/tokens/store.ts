/**
 * The tokens table and its node binding (`node_tokens`, migration 003). Rows come back parsed:
 * `scopes` is written and read as JSON text here and nowhere else.
 */
import type { TokenKind } from '../ports.ts';
import type { Db } from '../store/db.ts';

export interface TokenRow {
  id: string;
  kind: TokenKind;
  hash: Uint8Array;
  app_id: string | null;
  /** A node token's node (`node_tokens`, migration 003); `null` for owner and app tokens. */
  node_id: string | null;
  /** `null` = everything (owner). */
  scopes: string[] | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export type NewTokenRow = Omit<TokenRow, 'revoked_at' | 'last_used_at' | 'node_id'> & {
  node_id?: string | null;
};

/** A row as SQLite answers it: `scopes` still JSON text. */
type StoredRow = Omit<TokenRow, 'scopes'> & { scopes: string | null };

function parsed(row: StoredRow): TokenRow {
  return { ...row, scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as string[]) };
}

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
  const one = (row: unknown) => (row === undefined ? undefined : parsed(row as StoredRow));
  const all = (rows: unknown[]) => (rows as StoredRow[]).map(parsed);
  return {
    /** Inserts the token; a node token is bound to its node in the same statement group. */
    insert({ node_id, scopes, ...row }: NewTokenRow): void {
      q.insert.run({ ...row, scopes: scopes === null ? null : JSON.stringify(scopes) });
      if (node_id !== undefined && node_id !== null) q.bindNode.run(row.id, node_id);
    },
    byHash(hash: Uint8Array): TokenRow | undefined {
      return one(q.byHash.get(hash));
    },
    /** Every token not revoked (expired ones included): the token service's cache at start. */
    live(): TokenRow[] {
      return all(q.live.all());
    },
    byId(id: string): TokenRow | undefined {
      return one(q.byId.get(id));
    },
    /** Ordered by id (ULIDs sort by creation); `after` is the last id of the previous page. */
    list(after: string, limit: number): TokenRow[] {
      return all(q.list.all(after, limit));
    },
    revoke(id: string, at: string): boolean {
      return q.revoke.run(at, id).changes > 0;
    },
    /** Revokes every live token of `kind`; returns the revoked rows. */
    revokeKind(kind: TokenKind, at: string): TokenRow[] {
      return all(q.revokeKind.all(at, kind));
    },
    touch(id: string, at: string): void {
      q.touch.run(at, id);
    },
  };
}

export type TokenStore = ReturnType<typeof tokenStore>;
