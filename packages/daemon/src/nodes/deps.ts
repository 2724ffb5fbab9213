/**
 * What the node operations work with. Each operation takes the part it uses (a `Pick` of this);
 * `nodeService` makes the one set the daemon runs.
 */

import type { EventLog } from '../events/log.ts';
import type { ModelService } from '../models/service.ts';
import type { NodeRuntime } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { Store } from '../store/index.ts';
import type { NodeRow } from './store/nodes.ts';

export type AfterCommit = (cb: () => void) => void;

/** Runs in the transaction that makes a node final (`onFinal`). */
export type FinalHook = (row: NodeRow, afterCommit: AfterCommit) => void;

export interface NodeDeps {
  store: Store;
  events: EventLog;
  profiles: Pick<ProfileService, 'settings'>;
  models: Pick<ModelService, 'config' | 'requireReady'>;
  /** svc's home, which no git workspace may lie in (its worktrees aside). */
  home: string | undefined;
  /** The process side; the supervisor plugs itself in after the services are made. */
  runtime(): NodeRuntime;
  finalHooks: ReadonlySet<FinalHook>;
  /** After a commit that set a node waiting on a timer: the due-time source re-reads its soonest. */
  timerSet(): void;
}

export const now = (): string => new Date().toISOString();
