/**
 * The daemon's one clock: every durable due-time work (the crons' next runs, the human requests'
 * expiries, the custom objects' deliveries, the nodes' timers) runs on one timer, armed for the
 * soonest wake of all of them and re-armed after every change. What is due lives in the
 * database, so a work answers its soonest due time from there and the clock keeps nothing that a
 * restart would lose.
 *
 * The timer sleeps at most `MAX_SLEEP_MS`, so a wall clock that jumps (or a host that slept) is
 * noticed within that time instead of after a timer computed from the old clock. Wakes are kept
 * on the monotonic clock for that reason: a wall clock set back must not postpone them.
 */
import { performance } from 'node:perf_hooks';

export const MAX_SLEEP_MS = 60_000;
/** After a tick that failed, that work's next waits this long at least: no busy loop on a bad row. */
export const RETRY_MS = 1_000;

/** One source of due times the clock runs. */
export interface DueWork {
  /** The soonest due time (ISO), or `null` when nothing is due ever. */
  soonest(): string | null;
  /** Calls `listener` after every commit that changed a due time; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /**
   * Does what is due now; `first` on the tick `start` runs (a daemon's start, when what fell due
   * while it was down is handled); answers whether anything failed.
   */
  tick(first: boolean): boolean;
}

export interface ClockOptions {
  /** Told of a tick that threw (a work reports its own failures; this is the net under it). */
  onError?: (name: string, error: unknown) => void;
}

export interface Clock {
  /** Adds a work; added after `start`, it starts at once. Names are unique. */
  add(name: string, work: DueWork): void;
  /** Ticks every work once (`first`), in the order added, then keeps each on time. */
  start(): void;
  /** Stops the timer and every subscription; nothing ticks afterwards. */
  close(): void;
}

interface Entry {
  name: string;
  work: DueWork;
  /** The monotonic time (ms) of this work's next tick; `null` when nothing is due ever. */
  wakeAt: number | null;
  unsubscribe: (() => void) | undefined;
}

export function createClock(options: ClockOptions = {}): Clock {
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let closed = false;

  /** Sets when `entry` next ticks: at its soonest due time, not before `minDelay`, within MAX_SLEEP_MS. */
  function plan(entry: Entry, minDelay: number): void {
    const soonest = closed ? null : entry.work.soonest();
    if (soonest === null) {
      entry.wakeAt = null;
    } else {
      const wait = Math.min(Math.max(Date.parse(soonest) - Date.now(), minDelay), MAX_SLEEP_MS);
      // An unparsable time waits the longest sleep rather than spinning.
      entry.wakeAt = performance.now() + (Number.isNaN(wait) ? MAX_SLEEP_MS : wait);
    }
    arm();
  }

  /** The one timer, for the soonest wake of all works. */
  function arm(): void {
    clearTimeout(timer);
    timer = undefined;
    if (closed || !started) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const entry of entries.values()) {
      if (entry.wakeAt !== null && entry.wakeAt < soonest) soonest = entry.wakeAt;
    }
    if (soonest === Number.POSITIVE_INFINITY) return;
    timer = setTimeout(wake, Math.max(0, Math.ceil(soonest - performance.now())));
    timer.unref();
  }

  function wake(): void {
    timer = undefined;
    const now = performance.now();
    // A timer may fire a hair before the wake it was armed for (the event loop's cached time):
    // such a work is not ticked early, the timer is armed again for what is left.
    for (const entry of [...entries.values()]) {
      if (closed) return;
      if (entry.wakeAt !== null && entry.wakeAt <= now) run(entry, false);
    }
    arm();
  }

  function run(entry: Entry, first: boolean): void {
    entry.wakeAt = null;
    let failed: boolean;
    try {
      failed = entry.work.tick(first);
    } catch (error) {
      options.onError?.(entry.name, error);
      failed = true;
    }
    plan(entry, failed ? RETRY_MS : 0);
  }

  function begin(entry: Entry): void {
    // A change re-plans from its due time again, a retry's wait included, as before the failure.
    entry.unsubscribe = entry.work.onChange(() => plan(entry, 0));
    run(entry, true);
  }

  return {
    add(name, work) {
      if (entries.has(name)) throw new Error(`the clock has a work named ${name} already`);
      if (closed) return;
      const entry: Entry = { name, work, wakeAt: null, unsubscribe: undefined };
      entries.set(name, entry);
      if (started) begin(entry);
    },
    start() {
      if (started || closed) return;
      started = true;
      for (const entry of [...entries.values()]) {
        if (closed) return;
        begin(entry);
      }
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      for (const entry of entries.values()) {
        entry.unsubscribe?.();
        entry.unsubscribe = undefined;
        entry.wakeAt = null;
      }
    },
  };
}
