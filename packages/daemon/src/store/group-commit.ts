import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { DaemonError } from '../errors.ts';
import { adaptiveFlush, type Flush } from './wal-flush.ts';

export type { Flush } from './wal-flush.ts';

interface Waiting {
  generation: number;
  callbacks: (() => void)[];
}

/**
 * Group commit over a WAL written with `synchronous=NORMAL` (`db.ts`). Each commit takes the next
 * generation. One flush at a time syncs the WAL; when it ends, every commit made before it began
 * is durable, and those made during it wait for the next (the group). The callbacks of a commit
 * run, and its waiters hear, only once its generation is durable, in commit order.
 */
export function groupCommit(
  walPath: string,
  /** How many rows the connection has changed so far (SQLite's `total_changes()`). */
  changes: () => number,
  flush: Flush = adaptiveFlush(),
  onCallbackError: (error: unknown) => void = (error) => console.error(error),
  /** Makes every commit so far reach the WAL (`db.ts` ends its open batch), or calls `lost`. */
  settle: () => void = () => {},
) {
  let fd: number | null = null;
  let committed = 0;
  let changed = changes();
  let durable = 0;
  let inFlight: Promise<void> | null = null;
  let scheduled = false;
  let failure: Error | null = null;
  let closed = false;
  const queue: Waiting[] = [];
  // One promise per generation waited on, oldest first: the answers of one loop turn share one.
  const waiters: { generation: number; promise: Promise<void>; settle: () => void }[] = [];

  // Opened at the first flush, when a commit has written it; kept open, as SQLite keeps the WAL
  // (the same file) while its connection is open.
  const walFd = () => {
    fd ??= openSync(walPath, 'r');
    return fd;
  };

  const reached = (generation: number) => {
    durable = Math.max(durable, generation);
    // The waiters first: their answers then go out (on the microtasks queued here) before the
    // events the callbacks wake, which a flush writes to every stream (50 watchers: 0.3 to 0.6
    // ms of the daemon's at each flush, before each agent's next step could start).
    while (waiters.length > 0 && waiters[0]!.generation <= durable) waiters.shift()!.settle();
    while (queue.length > 0 && queue[0]!.generation <= durable) {
      for (const cb of queue.shift()!.callbacks) {
        try {
          cb();
        } catch (error) {
          // As before a commit's callbacks were deferred: the write stands, the rest still run.
          onCallbackError(error);
        }
      }
    }
  };

  const start = () => {
    scheduled = false;
    if (inFlight !== null || closed || failure !== null || durable === committed) return;
    const generation = committed;
    settle();
    if (failure !== null) return; // its COMMIT failed (`lost`)
    inFlight = flush(walFd()).then(
      () => {
        inFlight = null;
        if (closed) return;
        reached(generation);
        if (committed > durable) start(); // the group that committed while this one flushed
      },
      (error: unknown) => {
        inFlight = null;
        if (closed) return;
        // Nothing past `durable` may be told now: SQLite could not make it durable, and a
        // retried fsync may report success over pages the kernel already dropped.
        fail('db_sync_failed', error);
      },
    );
  };

  /** Nothing more is told or committed: every waiter hears why, no callback runs. */
  const fail = (code: 'db_sync_failed' | 'db_commit_failed', cause: unknown) => {
    const what = code === 'db_sync_failed' ? 'be synced to disk' : 'commit';
    failure = new DaemonError(code, `the database could not ${what}`, { cause });
    queue.length = 0;
    for (const w of waiters.splice(0)) w.settle();
  };

  const schedule = () => {
    // After this turn's I/O: the commits of every request it serves join the same flush.
    if (!scheduled && inFlight === null) {
      scheduled = true;
      setImmediate(start);
    }
  };

  /**
   * A write outside `transaction` (a statement in autocommit: a token's `last_used_at`, a
   * broker's end) is a commit too, with no callbacks: seen by the connection's change count.
   */
  const autocommitted = () => {
    const now = changes();
    if (now === changed) return;
    changed = now;
    committed += 1;
    schedule();
  };

  return {
    /** Refuses a new transaction once a flush failed (the commits after it cannot be trusted). */
    check(): void {
      if (failure !== null) throw failure;
    },
    /** Commits were lost before they reached the WAL: as a failed flush, none is ever told. */
    lost: (cause: unknown) => fail('db_commit_failed', cause),
    /** A commit landed (in the page cache): its callbacks wait for the flush that covers it. */
    committed(callbacks: (() => void)[]): void {
      changed = changes();
      committed += 1;
      if (callbacks.length > 0) queue.push({ generation: committed, callbacks });
      schedule();
    },
    durable(): Promise<void> | null {
      if (closed) return null; // `close` synced everything
      if (failure !== null) return Promise.reject(failure);
      autocommitted();
      if (durable === committed) return null;
      const last = waiters.at(-1);
      if (last?.generation === committed) return last.promise;
      let settle!: () => void;
      const promise = new Promise<void>((resolve, reject) => {
        settle = () => (failure === null ? resolve() : reject(failure));
      });
      waiters.push({ generation: committed, promise, settle });
      return promise;
    },
    /** Syncs what is left (a shutdown may block), tells its callbacks, lets go of the WAL. */
    close(): void {
      if (closed) return;
      autocommitted();
      if (committed > durable && failure === null) {
        settle();
        if (failure === null) {
          fdatasyncSync(walFd());
          reached(committed);
        }
      }
      closed = true;
      if (fd === null) return;
      const open = fd;
      fd = null;
      // A flush still in flight has the descriptor: it is closed once that returns.
      if (inFlight === null) closeSync(open);
      else void inFlight.finally(() => closeSync(open));
    },
  };
}
