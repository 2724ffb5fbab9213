import type { DbOptions } from '../../store/db.ts';
import { openStore, type Store } from '../../store/index.ts';
import type { Part } from './part.ts';

/** The database: opened first, closed last. */
export function storePart(dbPath: string, opts: DbOptions = {}): Part & { store: Store } {
  const store = openStore(dbPath, opts);
  try {
    // No request survives a restart: the claims the last daemon left running are void.
    store.idempotency.releaseUnfinished();
  } catch (error) {
    store.db.close();
    throw error;
  }
  return { name: 'store', store, close: () => store.db.close() };
}
