import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Node } from '../nodes/store/nodes.ts';
import { type CronDeps, iso } from './deps.ts';
import { fire } from './fire.ts';
import type { Cron } from './store.ts';
import { visibleCron } from './visibility.ts';

/**
 * Fires once now, whatever the schedule and state; `next_run_at` stays. A fire that creates no
 * node is recorded all the same, then answered as the error it met.
 */
export function runCron(deps: CronDeps, id: string, sight: Sight): { cron: Cron; node: Node } {
  const { store } = deps;
  const fired = store.db.transaction((afterCommit) => {
    const row = visibleCron(store, id, sight);
    const now = Date.now();
    store.crons.manualFire(row.id, iso(now));
    return fire(deps, row, iso(now), 'manual', now, afterCommit);
  });
  if (fired.node === null) {
    throw fired.failure ?? new ApiError('internal_error', 'the fire created no node');
  }
  return { cron: fired.cron, node: fired.node };
}
