/**
 * The human requests' due-time work on the clock: due at the soonest `expires_at`. Reads and
 * actions expire what is due on their own; this work is for the request nobody reads, whose node
 * waits for it.
 */
import type { DueWork } from '../clock/clock.ts';
import type { Logger } from '../lifecycle/logger.ts';
import type { HumanService } from './service.ts';

export function humanExpiry(human: HumanService, logger: Logger): DueWork {
  return {
    soonest: () => human.soonestExpiry(),
    onChange: (listener) => human.onChange(listener),
    tick() {
      try {
        human.expireDue();
        return false;
      } catch (error) {
        logger.error({ err: error }, 'human request expiry failed');
        return true;
      }
    },
  };
}
