/**
 * The daemon's own signing secrets (migration 012), e.g. the HMAC key of attachment links. Made
 * once and kept in the database (0600, like the model keys beside them), so a link handed out
 * before a restart still works after it.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.ts';

export function secretStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      'INSERT OR IGNORE INTO daemon_secrets (name, value, created_at) VALUES (?, ?, ?)',
    ),
    get: db.sqlite.prepare('SELECT value FROM daemon_secrets WHERE name = ?'),
  };
  return {
    /** The secret `name`, made of `bytes` random bytes the first time it is asked for. */
    ensure(name: string, bytes = 32): Buffer {
      q.insert.run(name, randomBytes(bytes), new Date().toISOString());
      const row = q.get.get(name) as { value: Uint8Array };
      return Buffer.from(row.value);
    },
  };
}

export type SecretStore = ReturnType<typeof secretStore>;
