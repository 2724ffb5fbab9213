/**
 * One timer for the soonest of a set of due times (the crons' next runs, the human requests'
 * expiries), re-armed after every change. It sleeps at most `MAX_SLEEP_MS`, so a wall clock that
 * jumps (or a host that slept) is noticed within that time instead of after a timer computed
 * from the old clock.
 */
export const MAX_SLEEP_MS = 60_000;
/** After a tick that failed, the next waits this long at least: no busy loop on a bad row. */
const RETRY_MS = 1_000;

export interface DueTimes {
  /** The soonest due time (ISO), or `null` when nothing is due ever. */
  soonest(): string | null;
  /** Calls `listener` after every commit that changed a due time; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/**
 * @param tick does what is due now; `first` on the tick `start` runs (a daemon's start, when
 * what fell due while it was down is handled); answers whether anything failed
 */
export function soonestTimer(due: DueTimes, tick: (first: boolean) => boolean) {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let unsubscribe: (() => void) | undefined;

  function arm(minDelay = 0): void {
    clearTimeout(timer);
    timer = undefined;
    if (closed) return;
    const soonest = due.soonest();
    if (soonest === null) return;
    const wait = Math.min(Math.max(Date.parse(soonest) - Date.now(), minDelay), MAX_SLEEP_MS);
    timer = setTimeout(() => run(false), wait);
    timer.unref();
  }

  function run(first: boolean): void {
    timer = undefined;
    arm(tick(first) ? RETRY_MS : 0);
  }

  return {
    start(): void {
      unsubscribe = due.onChange(() => arm());
      run(true);
    },
    close(): void {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      unsubscribe?.();
    },
  };
}
