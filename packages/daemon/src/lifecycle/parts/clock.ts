import { createClock } from '../../clock/clock.ts';
import { cronScheduler } from '../../crons/scheduler.ts';
import { objectDispatcher } from '../../custom-objects/dispatcher.ts';
import { humanExpiry } from '../../human/expiry.ts';
import { DAEMON_VERSION } from '../../version.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';
import type { Resources } from './resources.ts';

/**
 * The one clock (src/clock/): every due-time work of the daemon on one timer — the crons' fires,
 * the human requests' expiries, the custom objects' deliveries, the nodes' timer waits.
 *
 * Started after the supervisor, so the nodes of what fell due while the daemon was down (missed
 * cron fires, expired human requests, timer waits come due) queue for it, and deliveries due or left in flight go out
 * now. Closed first of the working parts: nothing fires once stopping began, since its node
 * would queue for a supervisor going away.
 */
export function clockPart(
  resources: Pick<Resources, 'crons' | 'human' | 'customObjects' | 'nodes'>,
  logger: Logger,
) {
  const dispatcher = objectDispatcher(resources.customObjects, logger, `svc/${DAEMON_VERSION}`);
  const clock = createClock({
    onError: (work, error) => logger.error({ err: error, work }, 'clock tick threw'),
  });
  clock.add('crons', cronScheduler(resources.crons, logger));
  clock.add('human-expiry', humanExpiry(resources.human, logger));
  clock.add('object-deliveries', dispatcher);
  clock.add('node-timers', resources.nodes.timers);
  return definePart({
    name: 'clock',
    start: () => clock.start(),
    close: () => {
      clock.close();
      // Deliveries in flight are cut: the clock no longer runs them, and the dispatcher aborts them.
      dispatcher.close();
    },
  });
}
