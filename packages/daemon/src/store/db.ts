import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { DaemonError } from '../errors.ts';
import { commitBatch } from './commit-batch.ts';
import { type Flush, groupCommit } from './group-commit.ts';
import { migrations } from './migrations/index.ts';

export type { Flush } from './group-commit.ts';

/** One SQLite connection: the daemon is the sole writer, so one synchronous handle serves all. */
export interface Db {
  readonly sqlite: DatabaseSync;
  /**
   * Runs `fn` in one `BEGIN IMMEDIATE … COMMIT`, rolled back if it throws. Callbacks `fn` passes
   * to `afterCommit` run once the commit is durable (after the flush that covers it, in commit
   * order), so no one hears of a write that did not land. Nested calls join the outer transaction.
   */
  transaction<T>(fn: (afterCommit: (cb: () => void) => void) => T): T;
  /**
   * Whether a `transaction` runs now (what it wrote may yet be undone). Not SQLite's own
   * `isTransaction`, which also holds between them, while the commits of a turn of the event
   * loop wait in one batch for their flush.
   */
  inTransaction(): boolean;
  /**
   * `null` when every commit so far is durable; else a promise that settles once they all are
   * (rejected if the flush failed). An answer that may show a write waits on it.
   */
  durable(): Promise<void> | null;
  /** Makes what is committed durable (synchronously), runs the callbacks waiting on it, closes. */
  close(): void;
}

export interface DbOptions {
  /** How the WAL is made durable; default `adaptiveFlush()` (`wal-flush.ts`). Tests hold it. */
  flush?: Flush | undefined;
  /** Where a throw of an `afterCommit` callback goes (they run after the commit's flush). */
  onCallbackError?: ((error: unknown) => void) | undefined;
  /**
   * Whether the transactions of a turn of the event loop share one SQLite commit (default
   * true); `false` commits each as it ends, for a test's stand-in writer whose rows another
   * connection must see at once.
   */
  batch?: boolean | undefined;
}

export function openDb(path: string, opts: DbOptions = {}): Db {
  restrictMode(path);
  const sqlite = new DatabaseSync(path, { timeout: 5_000, enableForeignKeyConstraints: true });
  // WAL with synchronous=NORMAL: a COMMIT writes the WAL to the OS page cache and does not wait
  // for the disk, which kept the event loop 1 to 6 ms per commit under synchronous=FULL. Each
  // commit is made durable instead by an `fdatasync` of the WAL, one at a time for every commit
  // made before it started (group commit, `group-commit.ts`; on the loop while the disk syncs
  // fast, off it when not, `wal-flush.ts`), and nothing that shows a write (an answer, an event,
  // a wake-up) goes out before it. So an acknowledged write still survives not only `kill -9`
  // but also a power loss or OS crash, as under FULL. SQLite itself syncs the WAL before each
  // checkpoint and the database after it, so the file stays whole.
  // Migrations run before any of that, under FULL: each is durable as it commits.
  sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  migrate(sqlite);
  // `temp_store = MEMORY`: each transaction is a savepoint of a batch (`commit-batch.ts`), and
  // what a savepoint may have to undo is kept in a sub-journal, spilled past 64 KiB to a temp
  // file (a `pwrite` per page) unless temp storage is memory.
  sqlite.exec('PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;');
  const totalChanges = sqlite.prepare('SELECT total_changes() AS n');
  // One SQLite transaction for the transactions of a turn of the loop (`commit-batch.ts`).
  const batch = commitBatch(sqlite, opts.batch ?? true, (error) => group.lost(error));
  const group = groupCommit(
    `${path}-wal`,
    () => (totalChanges.get() as { n: number }).n,
    opts.flush,
    opts.onCallbackError,
    batch.settle,
  );

  let pending: (() => void)[] | null = null;
  return {
    sqlite,
    transaction(fn) {
      if (pending !== null) return fn((cb) => pending?.push(cb));
      group.check();
      const callbacks: (() => void)[] = [];
      pending = callbacks;
      let result: ReturnType<typeof fn>;
      try {
        result = batch.run(() => fn((cb) => callbacks.push(cb)));
      } finally {
        pending = null;
      }
      group.committed(callbacks);
      return result;
    },
    inTransaction: () => pending !== null,
    durable: () => group.durable(),
    close() {
      if (!sqlite.isOpen) return;
      group.close();
      batch.forget(); // after a failure, what its batch holds is left to SQLite to roll back
      sqlite.close();
    },
  };
}

/**
 * The database holds model keys and profile env values, so it is the person's alone (0600), like
 * the home (0700) around it. SQLite creates `-wal` and `-shm` with the database file's mode, so
 * the file is made 0600 before SQLite opens it; files left by an older daemon are tightened too.
 */
function restrictMode(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}

function migrate(sqlite: DatabaseSync): void {
  const row = sqlite.prepare('PRAGMA user_version').get() as { user_version: number };
  if (row.user_version > migrations.length) {
    throw new DaemonError(
      'db_too_new',
      `the database has schema version ${row.user_version}, newer than this daemon knows (${migrations.length}); upgrade svc`,
    );
  }
  for (let version = row.user_version; version < migrations.length; version++) {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      sqlite.exec(migrations[version]!);
      sqlite.exec(`PRAGMA user_version = ${version + 1}`);
      sqlite.exec('COMMIT');
    } catch (error) {
      sqlite.exec('ROLLBACK');
      throw error;
    }
  }
}
