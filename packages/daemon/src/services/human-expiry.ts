/**
 * The human requests' clock: a `soonestTimer` on the soonest `expires_at`. Reads and actions
 * expire what is due on their own; this timer is for the request nobody reads, whose node waits
 * for it.
 */
import type { Logger } from '../lifecycle/logger.ts';
import type { HumanService } from './human.ts';
import { soonestTimer } from './soonest-timer.ts';

export function humanExpiry(human: HumanService, logger: Logger) {
  return soonestTimer(
    { soonest: () => human.soonestExpiry(), onChange: (listener) => human.onChange(listener) },
    () => {
      try {
        human.expireDue();
        return false;
      } catch (error) {
        logger.error({ err: error }, 'human request expiry failed');
        return true;
      }
    },
  );
}
