/**
 * The transactions of one turn of the event loop share one SQLite transaction (a batch), each a
 * savepoint of it; the batch commits just before the flush that makes it durable
 * (`group-commit.ts` calls `settle`). Why: a COMMIT writes every page it changed to the WAL
 * again, and the transactions of 8 agents' records change the same pages (the last page of
 * `events` and of each index): one COMMIT each wrote about 125 pages (500 KB) of WAL a node.
 * Nothing changes for the callers: no answer, event or wake-up goes out before the flush that
 * covers their transaction, and each transaction is still all or nothing.
 */
import type { DatabaseSync } from 'node:sqlite';

/**
 * The open batches of this process's connections. A connection about to write ends the others'
 * first (their commits still wait for their flush): a batch holds SQLite's write lock, and a
 * second connection in the same thread would wait on it for its whole busy timeout, the batch's
 * commit being due on that same thread. Only tests open two; the daemon is the sole writer.
 */
const openBatches = new Set<() => void>();

export interface CommitBatch {
  /** Runs `fn` in a savepoint of the open batch (opened if none is), undone alone if it throws. */
  run<T>(fn: () => T): T;
  /** Commits the open batch, if any; a COMMIT that fails goes to `lost`. */
  settle(): void;
  /** Forgets the batch of a connection about to close (SQLite rolls back what is left). */
  forget(): void;
}

/**
 * `batch: false` commits each transaction as it ends (a test's stand-in writer). `lost` hears of
 * transactions that ended well and are gone all the same: SQLite rolled their batch back (an I/O
 * error, a full disk) at a later one's throw, or its COMMIT failed.
 */
export function commitBatch(
  sqlite: DatabaseSync,
  batch: boolean,
  lost: (error: unknown) => void,
): CommitBatch {
  // Prepared once: run as often as transactions are, `exec` would parse them each time.
  const sql = {
    begin: sqlite.prepare('BEGIN IMMEDIATE'),
    commit: sqlite.prepare('COMMIT'),
    abandon: sqlite.prepare('ROLLBACK'),
    savepoint: sqlite.prepare('SAVEPOINT tx'),
    release: sqlite.prepare('RELEASE tx'),
    undo: sqlite.prepare('ROLLBACK TO tx'),
  };
  let held = 0; // the transactions the open batch holds
  function settle(): void {
    if (!openBatches.delete(settle)) return;
    held = 0;
    try {
      if (sqlite.isTransaction) sql.commit.run();
    } catch (error) {
      lost(error);
    }
  }
  function undo(error: unknown): void {
    if (!sqlite.isTransaction) {
      openBatches.delete(settle);
      if (held > 0) lost(error);
    } else if (held === 0) {
      // A batch of its own: ended now, not left holding the lock until the next transaction.
      openBatches.delete(settle);
      sql.abandon.run();
    } else {
      sql.undo.run();
      sql.release.run();
    }
  }
  return {
    run(fn) {
      if (!openBatches.has(settle)) {
        for (const other of openBatches) other();
        sql.begin.run();
        openBatches.add(settle);
      }
      sql.savepoint.run();
      let result: ReturnType<typeof fn>;
      try {
        result = fn();
        sql.release.run();
      } catch (error) {
        undo(error);
        throw error;
      }
      held += 1;
      if (!batch) settle();
      return result;
    },
    settle,
    forget: () => openBatches.delete(settle),
  };
}
