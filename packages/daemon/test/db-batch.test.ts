/**
 * The transactions of one turn of the event loop share one SQLite transaction, committed just
 * before the flush that makes it durable (`src/store/commit-batch.ts`): fewer pages written to
 * the WAL, and each transaction still all or nothing.
 */
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { openDb } from '../src/store/db.ts';
import { tempDbPaths } from './temp-db.ts';

const dbPath = tempDbPaths();

type Db = ReturnType<typeof openDb>;

const insert = (db: Db, at: string) =>
  db.sqlite
    .prepare('INSERT INTO events (kind, subject, payload, created_at) VALUES (?, ?, ?, ?)')
    .run('t', null, '{}', at);

const count = (db: Db) =>
  (db.sqlite.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;

/** Frames in the WAL: its 32-byte header, then a 24-byte header and a 4 KiB page each. */
const walFrames = (path: string) => Math.max(0, (statSync(`${path}-wal`).size - 32) / 4120);

describe('transactions batched per turn of the event loop', () => {
  it('the transactions of one turn write the pages they share to the WAL once', async () => {
    const path = dbPath();
    const db = openDb(path);
    db.sqlite.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const told: number[] = [];
    for (let i = 0; i < 20; i++) {
      db.transaction((afterCommit) => {
        insert(db, String(i));
        afterCommit(() => told.push(i));
      });
    }
    // One SQLite transaction holds them until the flush.
    expect(db.sqlite.isTransaction).toBe(true);
    expect(db.inTransaction()).toBe(false);
    await db.durable();
    expect(db.sqlite.isTransaction).toBe(false);
    expect(told).toHaveLength(20);
    // 20 COMMITs would write the table's last page and each index's 20 times each.
    expect(walFrames(path)).toBeLessThanOrEqual(5);
    expect(count(db)).toBe(20);
    db.close();
  });

  it('a transaction that throws undoes itself alone, and the others of its turn stand', async () => {
    const path = dbPath();
    const db = openDb(path);
    const told: string[] = [];
    db.transaction((afterCommit) => {
      insert(db, 'kept');
      afterCommit(() => told.push('kept'));
    });
    expect(() =>
      db.transaction((afterCommit) => {
        insert(db, 'undone');
        afterCommit(() => told.push('undone'));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    db.transaction(() => insert(db, 'after'));
    await db.durable();
    expect(told).toEqual(['kept']);
    db.close();
    const again = new DatabaseSync(path);
    expect(again.prepare('SELECT created_at FROM events ORDER BY seq').all()).toEqual([
      { created_at: 'kept' },
      { created_at: 'after' },
    ]);
    again.close();
  });

  it('a transaction that throws with none before it in its turn holds no lock', () => {
    const path = dbPath();
    const db = openDb(path);
    expect(() =>
      db.transaction(() => {
        insert(db, 'undone');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.sqlite.isTransaction).toBe(false);
    // Another connection may write at once (a held write lock would make it wait, then fail).
    const other = new DatabaseSync(path, { timeout: 0 });
    other.exec(
      "INSERT INTO events (kind, subject, payload, created_at) VALUES ('t', NULL, '{}', 'x')",
    );
    other.close();
    db.close();
  });

  /** Ways a batch's transactions, each ended well, are lost all the same. */
  const losses: { how: string; lose: (db: Db) => void; rowsLeft?: number }[] = [
    {
      // As SQLite does on an I/O error or a full disk: the whole transaction is gone.
      how: "SQLite rolls it back whole at a later transaction's throw",
      lose: (db) =>
        expect(() =>
          db.transaction(() => {
            db.sqlite.exec('ROLLBACK');
            throw new Error('disk I/O error');
          }),
        ).toThrow('disk I/O error'),
      rowsLeft: 0,
    },
    {
      // A foreign key checked at COMMIT (deferred): both transactions ended well before it.
      how: 'its COMMIT fails',
      lose: (db) =>
        db.transaction(() => {
          db.sqlite.exec('PRAGMA defer_foreign_keys = ON');
          db.sqlite
            .prepare(
              "INSERT INTO profile_env (profile, name, value, updated_at) VALUES ('none', 'A', 'v', 'now')",
            )
            .run();
        }),
    },
  ];

  it.each(losses)('a batch lost when $how is told to no one, and writes stop', async (loss) => {
    const db = openDb(dbPath());
    const told: string[] = [];
    db.transaction((afterCommit) => {
      insert(db, 'first');
      afterCommit(() => told.push('first'));
    });
    const first = db.durable();
    loss.lose(db);
    await expect(first).rejects.toThrow(/could not commit/);
    expect(told).toEqual([]);
    expect(() => db.transaction(() => insert(db, 'later'))).toThrow(/could not commit/);
    if (loss.rowsLeft !== undefined) expect(count(db)).toBe(loss.rowsLeft);
    db.close();
  });

  it('a second connection of the same process writes at once, never waiting on a batch', async () => {
    const path = dbPath();
    const first = openDb(path);
    const second = openDb(path);
    first.transaction(() => insert(first, 'first'));
    // The first's batch holds the write lock: left to its flush (due on this same thread), this
    // would wait out the busy timeout and throw "database is locked".
    second.transaction(() => insert(second, 'second'));
    first.transaction(() => insert(first, 'third'));
    await Promise.all([first.durable(), second.durable()]);
    expect(count(first)).toBe(3);
    first.close();
    second.close();
  });

  it('nothing another connection reads is ahead of what the daemon was told is durable', async () => {
    const path = dbPath();
    const db = openDb(path);
    db.transaction(() => insert(db, 'one'));
    const reader = new DatabaseSync(path, { readOnly: true });
    const seen = () =>
      (reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    expect(seen()).toBe(0);
    await db.durable();
    expect(seen()).toBe(1);
    reader.close();
    db.close();
  });
});
