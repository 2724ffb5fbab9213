import { cronScheduler } from '../../services/cron-scheduler.ts';
import { humanExpiry } from '../../services/human-expiry.ts';
import { objectDispatcher } from '../../services/object-dispatcher.ts';
import { DAEMON_VERSION } from '../../version.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';
import type { Resources } from './resources.ts';

/**
 * The place of the one clock (src/clock/, issue 24): due-time work. Today three timers, each
 * its own; the one durable due-time mechanism replaces them here, with the same start/close.
 *
 * Started after the supervisor, so the nodes of what fell due while the daemon was down (missed
 * cron fires, expired human requests) queue for it, and deliveries due or left in flight go out
 * now. Closed first of the working parts: nothing fires once stopping began, since its node
 * would queue for a supervisor going away.
 */
export function clockPart(
  resources: Pick<Resources, 'crons' | 'human' | 'customObjects'>,
  logger: Logger,
) {
  const timers = [
    cronScheduler(resources.crons, logger),
    humanExpiry(resources.human, logger),
    objectDispatcher(resources.customObjects, logger, `svc/${DAEMON_VERSION}`),
  ];
  return definePart({
    name: 'clock',
    start: () => {
      for (const timer of timers) timer.start();
    },
    close: () => {
      for (const timer of timers) timer.close();
    },
  });
}
