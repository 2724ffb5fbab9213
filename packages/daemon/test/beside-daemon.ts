import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * A second connection to a running daemon's database, as a test's hand on a row. It waits for
 * the daemon's write lock: the daemon batches a turn of its event loop into one transaction, and
 * on a loaded machine that transaction can hold the lock well past SQLite's default of no wait,
 * which failed CI once with "database is locked".
 */
export function besideDaemon(home: string, options: { readOnly?: boolean } = {}): DatabaseSync {
  return new DatabaseSync(join(home, 'svc.db'), { timeout: 60_000, ...options });
}
