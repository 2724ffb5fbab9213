/**
 * The crons' due-time work on the clock: due at the soonest `next_run_at`. A tick fires what is
 * due, on time within `ON_TIME_MS`; the first tick, at daemon start, allows no lateness, so every
 * time that passed while the daemon was down gets its cron's missed policy.
 */
import type { DueWork } from '../clock/clock.ts';
import type { Logger } from '../lifecycle/logger.ts';
import { ON_TIME_MS } from './evaluate.ts';
import type { CronService } from './service.ts';

export function cronScheduler(crons: CronService, logger: Logger): DueWork {
  return {
    soonest: () => crons.soonest(),
    onChange: (listener) => crons.onChange(listener),
    tick(first) {
      let failed: ReturnType<CronService['fireDue']>;
      try {
        failed = crons.fireDue(Date.now(), first ? 0 : ON_TIME_MS);
      } catch (error) {
        failed = [{ id: '*', error }];
      }
      for (const { id, error } of failed) {
        logger.error({ err: error, cron_id: id }, 'cron tick failed');
      }
      return failed.length > 0;
    },
  };
}
