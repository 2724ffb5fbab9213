/**
 * What the crons' operations are made of. Each operation takes the part of `CronDeps` it uses;
 * `service.ts` builds the whole once.
 */

import type { EventLog } from '../events/log.ts';
import type { NodeService } from '../nodes/service.ts';
import type { AfterCommit } from '../ports.ts';
import type { Store } from '../store/index.ts';

export interface CronDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'insertNode'>;
  /** Tells the clock, once the transaction commits, that a cron's next time may have moved. */
  changed: (afterCommit: AfterCommit) => void;
}

export const iso = (ms: number) => new Date(ms).toISOString();
