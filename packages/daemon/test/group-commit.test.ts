import { fdatasync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { type Flush, openDb } from '../src/store/db.ts';
import { openStore } from '../src/store/index.ts';
import { tempDbPaths } from './temp-db.ts';

const dbPath = tempDbPaths();

/** A flush the test lets go of: each call waits for `release()`, then really syncs. */
function heldFlush() {
  const held: (() => void)[] = [];
  let calls = 0;
  const flush: Flush = (fd) => {
    calls += 1;
    return new Promise((resolve, reject) => {
      held.push(() => fdatasync(fd, (error) => (error === null ? resolve() : reject(error))));
    });
  };
  return {
    flush,
    get calls() {
      return calls;
    },
    /** Waits for the next flush to start (the db starts it after the loop's turn). */
    async started(): Promise<void> {
      for (let turn = 0; turn < 20 && held.length === 0; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (held.length === 0) throw new Error('no flush started');
    },
    release(): void {
      held.shift()?.();
    },
  };
}

const write = (db: ReturnType<typeof openDb>, n: number, told: number[]) =>
  db.transaction((afterCommit) => {
    db.sqlite
      .prepare('INSERT INTO events (kind, subject, payload, created_at) VALUES (?, ?, ?, ?)')
      .run('t', null, '{}', String(n));
    afterCommit(() => told.push(n));
  });

describe('group commit', () => {
  it('tells no one of a commit before the flush that covers it, and groups commits made meanwhile', async () => {
    const hold = heldFlush();
    const db = openDb(dbPath(), { flush: hold.flush });
    const told: number[] = [];
    expect(db.durable()).toBeNull(); // nothing unflushed: an idle read waits for nothing
    write(db, 1, told);
    write(db, 2, told); // the same synchronous run: the same flush
    const first = db.durable();
    expect(first).not.toBeNull();
    await hold.started();
    expect(hold.calls).toBe(1);
    write(db, 3, told); // during the flush: the next group
    write(db, 4, told);
    const second = db.durable();
    expect(told).toEqual([]);
    let firstDone = false;
    void first!.then(() => {
      firstDone = true;
    });
    hold.release();
    await first;
    expect(firstDone).toBe(true);
    expect(told).toEqual([1, 2]);
    await hold.started();
    expect(hold.calls).toBe(2);
    expect(told).toEqual([1, 2]);
    hold.release();
    await second;
    expect(told).toEqual([1, 2, 3, 4]);
    expect(db.durable()).toBeNull();
    expect(hold.calls).toBe(2); // one flush per group, not per commit
    db.close();
  });

  it("a flush's answers go out before the events its commits wake", async () => {
    const hold = heldFlush();
    const db = openDb(dbPath(), { flush: hold.flush });
    const order: string[] = [];
    // As `sse.ts` wakes its streams (a microtask), and as an answer waits (`request-path.ts`).
    db.transaction((afterCommit) => {
      db.sqlite
        .prepare('INSERT INTO events (kind, subject, payload, created_at) VALUES (?, ?, ?, ?)')
        .run('t', null, '{}', '1');
      afterCommit(() => queueMicrotask(() => order.push('events')));
    });
    const answered = db.durable()!.then(() => order.push('answer'));
    await hold.started();
    hold.release();
    await answered;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['answer', 'events']);
    db.close();
  });

  it('a rolled-back transaction has no callbacks and asks no flush', async () => {
    const hold = heldFlush();
    const db = openDb(dbPath(), { flush: hold.flush });
    const told: number[] = [];
    expect(() =>
      db.transaction((afterCommit) => {
        afterCommit(() => told.push(1));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.durable()).toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(hold.calls).toBe(0);
    db.close();
  });

  it('a write outside a transaction (autocommit) is flushed before an answer too', async () => {
    const hold = heldFlush();
    const db = openDb(dbPath(), { flush: hold.flush });
    db.sqlite
      .prepare('INSERT INTO events (kind, subject, payload, created_at) VALUES (?, ?, ?, ?)')
      .run('t', null, '{}', 'now');
    const synced = db.durable();
    expect(synced).not.toBeNull();
    await hold.started();
    hold.release();
    await synced;
    expect(db.durable()).toBeNull();
    db.close();
  });

  it('a failed flush tells no one, rejects the waiters and refuses later writes', async () => {
    const failing: Flush = () => Promise.reject(new Error('EIO'));
    const db = openDb(dbPath(), { flush: failing });
    const told: number[] = [];
    write(db, 1, told);
    await expect(db.durable()).rejects.toThrow(/could not be synced/);
    expect(told).toEqual([]);
    expect(() => write(db, 2, told)).toThrow(/could not be synced/);
    db.close();
  });

  it('close syncs what is left and runs its callbacks, while a flush is held', async () => {
    const hold = heldFlush();
    const path = dbPath();
    const db = openDb(path, { flush: hold.flush });
    const told: number[] = [];
    write(db, 1, told);
    await hold.started();
    write(db, 2, told);
    db.close();
    expect(told).toEqual([1, 2]);
    hold.release(); // the held flush ends after the close: it changes nothing more
    const again = openDb(path);
    expect(again.sqlite.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 2 });
    again.close();
  });

  it('syncs on the event loop by default (a fast disk): the flush ends in the turn it starts', async () => {
    const db = openDb(dbPath());
    const told: number[] = [];
    write(db, 1, told);
    expect(db.durable()).not.toBeNull();
    // The flush starts at the loop's check phase; made there, it is over (and its callbacks
    // run) before the next callback of that phase. Off the loop it would end in a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(told).toEqual([1]);
    expect(db.durable()).toBeNull();
    db.close();
  });

  it('event readers see no row before its commit is durable', async () => {
    const hold = heldFlush();
    const store = openStore(dbPath(), { flush: hold.flush });
    const events = eventLog(store);
    events.record('daemon.started', null, {});
    expect(events.rows(0, 10)).toEqual([]);
    expect(events.pending()).toBe(true);
    await hold.started();
    hold.release();
    await store.db.durable();
    expect(events.rows(0, 10).map((row) => row.kind)).toEqual(['daemon.started']);
    expect(events.pending()).toBe(false);
    // A record rolled back is no event on its way: nothing pending waits for it.
    expect(() =>
      store.db.transaction(() => {
        events.record('daemon.stopping', null, {});
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(events.pending()).toBe(false);
    store.db.close();
  });
});
