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
  return {
    /** Appends in the caller's transaction (or its own); listeners hear of it after the commit. */
    record(kind: string, subject: string | null, payload: object): EventDto {
      return store.db.transaction((afterCommit) => {
        const row = store.events.insert(kind, subject, payload, new Date().toISOString());
        afterCommit(wake);
        return toEventDto(row);
      });
    },
    list(after: number, limit: number, kinds?: readonly string[]): EventDto[] {
      return store.events.list({ after, limit, kinds }).map(toEventDto);
    },
    /** The rows as stored, payload unparsed: what a stream sends as it is. */
    rows(after: number, limit: number, kinds?: readonly string[]): EventRow[] {
      return store.events.list({ after, limit, kinds });
    },
    lastSeq(): number {
      return store.events.lastSeq();
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

export function toEventDto(row: EventRow): EventDto {
  return {
    seq: row.seq,
    kind: row.kind,
    subject_id: row.subject,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_at: row.created_at,
  };
}
