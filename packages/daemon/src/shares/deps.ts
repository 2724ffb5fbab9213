import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';

/** What the share operations use. */
export interface ShareDeps {
  store: Pick<Store, 'db' | 'shares'>;
  events: EventLog;
  /** The clock shares are made and judged live by, in ms. */
  now: () => number;
}
