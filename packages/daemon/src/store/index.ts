import { openDb } from './db.ts';
import { eventStore } from './events.ts';
import { idempotencyStore } from './idempotency.ts';
import { tokenStore } from './tokens.ts';

export type { Db } from './db.ts';

/** The database and its query modules. */
export function openStore(path: string) {
  const db = openDb(path);
  return {
    db,
    tokens: tokenStore(db),
    events: eventStore(db),
    idempotency: idempotencyStore(db),
  };
}

export type Store = ReturnType<typeof openStore>;
