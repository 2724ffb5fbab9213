/**
 * The crons' clock: one timer for the soonest `next_run_at`, re-armed after every change. It
 * sleeps at most `MAX_SLEEP_MS`, so a wall clock that jumps (or a host that slept) is noticed
 * within that time instead of after a timer computed from the old clock.
 */
import type { Logger } from '../lifecycle/logger.ts';
import { type CronService, ON_TIME_MS } from './crons.ts';

export const MAX_SLEEP_MS = 60_000;
/** After a tick that failed, the next waits this long at least: no busy loop on a bad row. */
const RETRY_MS = 1_000;

export function cronScheduler(crons: CronService, logger: Logger) {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let unsubscribe: (() => void) | undefined;

  function arm(minDelay = 0): void {
    clearTimeout(timer);
    timer = undefined;
    if (closed) return;
    const soonest = crons.soonest();
    if (soonest === null) return;
    const wait = Math.min(Math.max(Date.parse(soonest) - Date.now(), minDelay), MAX_SLEEP_MS);
    timer = setTimeout(() => tick(ON_TIME_MS), wait);
    timer.unref();
  }

  function tick(graceMs: number): void {
    timer = undefined;
    let failed: ReturnType<CronService['fireDue']> = [];
    try {
      failed = crons.fireDue(Date.now(), graceMs);
    } catch (error) {
      failed = [{ id: '*', error }];
    }
    for (const { id, error } of failed)
      logger.error({ err: error, cron_id: id }, 'cron tick failed');
    arm(failed.length > 0 ? RETRY_MS : 0);
  }

  return {
    /**
     * Applies the missed policy to every cron whose time passed while the daemon was down (no
     * grace: a time before this start was missed), then arms the timer.
     */
    start(): void {
      unsubscribe = crons.onChange(() => arm());
      tick(0);
    },

    close(): void {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      unsubscribe?.();
    },
  };
}

export type CronScheduler = ReturnType<typeof cronScheduler>;
