/**
 * A bounded long-poll over the event log: re-checks `ready` after every commit that appended
 * events (every state change writes one), and answers at the first non-null value, when
 * `timeoutMs` passes (`null`), or when `signal` aborts (`null`: the caller went away). A throw
 * from `ready` (the node was deleted meanwhile) rejects the wait, never the committer's call.
 */
import type { EventLog } from '../events/log.ts';

export function waitUntil<T>(
  events: EventLog,
  ready: () => T | null,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T | null> {
  const first = ready();
  if (first !== null || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(first);
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    };
    const done = (value: T | null) => {
      settle();
      resolve(value);
    };
    const onAbort = () => done(null);
    const timer = setTimeout(() => done(null), timeoutMs);
    const unsubscribe = events.subscribe(() => {
      try {
        const value = ready();
        if (value !== null) done(value);
      } catch (error) {
        settle();
        reject(error);
      }
    });
    signal?.addEventListener('abort', onAbort);
  });
}
