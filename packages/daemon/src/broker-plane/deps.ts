/**
 * What the broker plane's operations are made of. Each operation takes the part of `PlaneDeps`
 * it uses; `service.ts` builds the whole once, with its defaults.
 */
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { ModelService } from '../models/service.ts';
import type { NodeService } from '../nodes/service.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { SandboxService } from '../sandbox/service.ts';
import type { Store } from '../store/index.ts';

/** Crashes and non-fatal faults in a row (no new turn between them) before the node fails. */
export const DEFAULT_RELAUNCH_BUDGET = 3;

export interface BrokerPlaneDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'move' | 'submit'>;
  models: Pick<ModelService, 'connection'>;
  profiles: Pick<ProfileService, 'find' | 'envValues'>;
  sandbox: Pick<SandboxService, 'forNode'>;
  relaunchBudget?: number;
}

/** `BrokerPlaneDeps` with its defaults in. */
export type PlaneDeps = Omit<BrokerPlaneDeps, 'relaunchBudget'> & { relaunchBudget: number };

export const now = () => new Date().toISOString();

/** The node's row; 404 when there is none. */
export function nodeRow(store: Pick<Store, 'nodes'>, id: string): NodeRow {
  const found = store.nodes.get(id);
  if (found === undefined) throw new ApiError('not_found', `no node ${id}`, { field: 'id' });
  return found;
}
