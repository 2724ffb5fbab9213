import type { Db } from './db.ts';

/** How long a key's first answer is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRow {
  token_id: string;
  key: string;
  fingerprint: string;
  status: number | null;
  content_type: string | null;
  body: string | null;
  created_at: number;
  /** The node or run the request made before holding its answer open (`madeOnce`). */
  made: string | null;
}

export type ClaimResult = { claimed: true } | { claimed: false; row: IdempotencyRow };

export function idempotencyStore(db: Db) {
  const q = {
    purge: db.sqlite.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
    get: db.sqlite.prepare('SELECT * FROM idempotency_keys WHERE token_id = ? AND key = ?'),
    claim: db.sqlite.prepare(
      `INSERT INTO idempotency_keys (token_id, key, fingerprint, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    ),
    complete: db.sqlite.prepare(
      `UPDATE idempotency_keys SET status = ?, content_type = ?, body = ?
       WHERE token_id = ? AND key = ?`,
    ),
    made: db.sqlite.prepare('UPDATE idempotency_keys SET made = ? WHERE token_id = ? AND key = ?'),
    // A claim that made something stays, for a retry to wait on it again (`madeOnce`).
    release: db.sqlite.prepare(
      'DELETE FROM idempotency_keys WHERE token_id = ? AND key = ? AND made IS NULL',
    ),
    releaseUnfinished: db.sqlite.prepare(
      'DELETE FROM idempotency_keys WHERE status IS NULL AND made IS NULL',
    ),
  };
  return {
    /**
     * Claims `(tokenId, key)` for a request about to run, or returns the row of whoever holds it.
     * The INSERT is the lock: of two concurrent duplicates exactly one claims the key.
     */
    claim(tokenId: string, key: string, fingerprint: string, now: number): ClaimResult {
      return db.transaction(() => {
        q.purge.run(now - IDEMPOTENCY_TTL_MS);
        if (q.claim.run(tokenId, key, fingerprint, now).changes > 0) return { claimed: true };
        return { claimed: false, row: q.get.get(tokenId, key) as unknown as IdempotencyRow };
      });
    },
    complete(
      tokenId: string,
      key: string,
      status: number,
      contentType: string | null,
      body: string,
    ): void {
      q.complete.run(status, contentType, body, tokenId, key);
    },
    /** Records what the claim's request made; in the transaction that made it (`madeOnce`). */
    made(tokenId: string, key: string, id: string): void {
      q.made.run(id, tokenId, key);
    },
    /**
     * Forgets a claim whose request failed on our side, so a retry may run it; one whose request
     * made a node or run stays, so a retry waits on that instead of making another.
     */
    release(tokenId: string, key: string): void {
      q.release.run(tokenId, key);
    },
    /**
     * At start: no request survives a restart, so a claim still marked running is void, unless
     * its request made something a retry can wait on again (`made`).
     */
    releaseUnfinished(): void {
      q.releaseUnfinished.run();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
