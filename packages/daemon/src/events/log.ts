import type { SvcEvent as EventDto } from '@svc/protocol';
import type { EventRow } from '../store/events.ts';
import type { Store } from '../store/index.ts';

/** An event as it travels: the row with its payload parsed. */
export type { EventDto };

/**
 * The append-only event log plus a wake-up signal for live readers. Subscribers are told *that*
 * events were committed, not which: they read them back from the table by `seq`, so a slow
 * reader never buffers without bound and backlog and live share one code path.
 */
export function eventLog(store: Store) {
  const listeners = new Set<() => void>();
  const wake = () => {
    for (const listener of listeners) listener();
  };
  const shared = sharedPage();
  // The last seq whose commit is durable: readers are shown no row past it (group commit,
  // `store/group-commit.ts`), as no one may hear of a write before it would survive a crash.
  let durableSeq = store.events.lastSeq();
  // The last seq `record` inserted: past `durableSeq` while its commit is on its way to the disk
  // (or until a reader finds it rolled back). `pending` asks the table only then, once per change.
  let recordedSeq = durableSeq;
  let asked: { recorded: number; durable: number; pending: boolean } | null = null;
  const sharedRows = (key: string, read: () => readonly EventRow[]): readonly EventRow[] => {
    const hit = shared.get(key);
    if (hit !== undefined) return hit;
    // Only while a record of ours is on its way to the disk: then every row past `durableSeq` is
    // one of ours (the daemon is the sole writer). Rows another connection committed (a test's
    // stand-in broker) are shown as soon as they are there.
    const rows = recordedSeq > durableSeq ? upTo(read(), durableSeq) : read();
    // Uncommitted rows are never shared: the transaction may yet roll back.
    if (!store.db.inTransaction()) shared.set(key, rows);
    return rows;
  };
  return {
    /** Appends in the caller's transaction (or its own); listeners hear of it after the commit. */
    record(kind: string, subject: string | null, payload: object): EventDto {
      shared.clear();
      return store.db.transaction((afterCommit) => {
        const row = store.events.insert(kind, subject, payload, new Date().toISOString());
        recordedSeq = row.seq;
        afterCommit(() => {
          if (row.seq > durableSeq) durableSeq = row.seq;
          shared.clear(); // pages read before were cut at the old durable seq
          wake();
        });
        return toEventDto(row);
      });
    },
    list(after: number, limit: number, kinds?: readonly string[]): EventDto[] {
      return store.events.list({ after, limit, kinds }).map(toEventDto);
    },
    /**
     * The rows as stored, payload unparsed: what a stream sends as it is. The streams one commit
     * wakes ask for the same page (the rows after the seq each sent last), so they share one read
     * of it, and the same array: a stream writes a page's frames once for all (`sse.ts`).
     */
    rows(after: number, limit: number, kinds?: readonly string[]): readonly EventRow[] {
      return sharedRows(`log ${after} ${limit} ${kinds?.join(',') ?? ''}`, () =>
        store.events.list({ after, limit, kinds }),
      );
    },
    /**
     * What `read` answers, read once for every caller with the same `key` until the next append
     * or the event loop's next turn: the watchers of one node or run, woken by one commit.
     */
    shared: sharedRows,
    lastSeq(): number {
      return store.events.lastSeq();
    },
    /**
     * Whether events are committed that readers are not shown yet: their commit's flush is under
     * way, and a wake-up follows it. A stream that would end (a backlog sent, its nodes settled)
     * waits for them first.
     */
    pending(): boolean {
      if (recordedSeq <= durableSeq) return false;
      if (asked?.recorded !== recordedSeq || asked.durable !== durableSeq) {
        const pending = store.events.lastSeq() > durableSeq;
        if (!pending) recordedSeq = durableSeq; // rolled back
        asked = { recorded: recordedSeq, durable: durableSeq, pending };
      }
      return asked.pending;
    },
    /**
     * Wakes the listeners after the caller's commit of a change that appends no event but that a
     * long-poll re-reads: a job's cancel request, which a broker's directive poll answers.
     */
    touch(afterCommit: (cb: () => void) => void): void {
      afterCommit(wake);
    },
    /** Calls `listener` after every commit that appended events; returns the unsubscribe. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type EventLog = ReturnType<typeof eventLog>;

/**
 * The pages read since the last append, for the rest of this turn of the event loop at most: an
 * append clears them, and so does the loop's next turn, so a page never outlives the writes
 * (deletes included) that the next turn's requests may make.
 */
function sharedPage() {
  const pages = new Map<string, readonly EventRow[]>();
  let scheduled = false;
  const clear = () => {
    pages.clear();
    scheduled = false;
  };
  return {
    clear,
    get: (key: string) => pages.get(key),
    set(key: string, rows: readonly EventRow[]): void {
      pages.set(key, rows);
      if (!scheduled) {
        scheduled = true;
        setImmediate(clear);
      }
    },
  };
}

/** `rows` (in seq order) up to `seq`: the very array when all are (so its frames stay shared). */
function upTo(rows: readonly EventRow[], seq: number): readonly EventRow[] {
  if (rows.length === 0 || rows.at(-1)!.seq <= seq) return rows;
  const end = rows.findIndex((row) => row.seq > seq);
  return rows.slice(0, end);
}

export function toEventDto(row: EventRow): EventDto {
  return {
    seq: row.seq,
    kind: row.kind,
    subject_id: row.subject,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_at: row.created_at,
  };
}
