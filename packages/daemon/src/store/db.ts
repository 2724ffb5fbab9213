import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { DaemonError } from '../errors.ts';
import { migrations } from './migrations/index.ts';

/** One SQLite connection: the daemon is the sole writer, so one synchronous handle serves all. */
export interface Db {
  readonly sqlite: DatabaseSync;
  /**
   * Runs `fn` in one `BEGIN IMMEDIATE … COMMIT`, rolled back if it throws. Callbacks `fn` passes
   * to `afterCommit` run once the commit is durable, so no one hears of a write that did not land.
   * Nested calls join the outer transaction.
   */
  transaction<T>(fn: (afterCommit: (cb: () => void) => void) => T): T;
  close(): void;
}

export function openDb(path: string): Db {
  restrictMode(path);
  const sqlite = new DatabaseSync(path, { timeout: 5_000, enableForeignKeyConstraints: true });
  // WAL: readers never block the writer. synchronous=FULL fsyncs the WAL on every commit, so an
  // acknowledged write survives not only `kill -9` (NORMAL would already do: the WAL is in the
  // OS page cache) but also a power loss or OS crash; our write rate is low enough to pay for it.
  sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  migrate(sqlite);

  let pending: (() => void)[] | null = null;
  return {
    sqlite,
    transaction(fn) {
      if (pending !== null) return fn((cb) => pending?.push(cb));
      const callbacks: (() => void)[] = [];
      pending = callbacks;
      sqlite.exec('BEGIN IMMEDIATE');
      let result: ReturnType<typeof fn>;
      try {
        result = fn((cb) => callbacks.push(cb));
        sqlite.exec('COMMIT');
      } catch (error) {
        if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
        throw error;
      } finally {
        pending = null;
      }
      for (const cb of callbacks) cb();
      return result;
    },
    close() {
      if (sqlite.isOpen) sqlite.close();
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
