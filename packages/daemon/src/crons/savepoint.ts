import type { Store } from '../store/index.ts';

/**
 * `fn` inside a savepoint of the caller's transaction, undone if it throws, or always with
 * `keep: false`: a node create that fails (or is only tried) leaves no row and no event.
 */
export function savepoint<T>(store: Pick<Store, 'db'>, fn: () => T, keep: boolean): T {
  store.db.sqlite.exec('SAVEPOINT cron_node');
  try {
    const result = fn();
    if (!keep) store.db.sqlite.exec('ROLLBACK TO cron_node');
    return result;
  } catch (error) {
    store.db.sqlite.exec('ROLLBACK TO cron_node');
    throw error;
  } finally {
    store.db.sqlite.exec('RELEASE cron_node');
  }
}
