import type { Sight } from '../access/visibility.ts';
import { type CronDeps, iso } from './deps.ts';
import { evaluate, ON_TIME_MS } from './evaluate.ts';
import { nextRunAt } from './schedule.ts';
import { type Cron, toCron } from './store.ts';
import { visibleCron } from './visibility.ts';

/**
 * Re-evaluates now: a time passed unfired fires (on time) or gets the missed policy (late); then
 * `next_run_at` is recomputed from now. A paused cron answers as it is.
 */
export function pokeCron(deps: CronDeps, id: string, sight: Sight): Cron {
  const { store, events } = deps;
  return store.db.transaction((afterCommit) => {
    const row = visibleCron(store, id, sight);
    const now = Date.now();
    evaluate(deps, row.id, now, ON_TIME_MS);
    const after = store.crons.get(row.id)!;
    if (after.state !== 'active') return toCron(after);
    const next = nextRunAt(after.schedule, after.timezone, new Date(now));
    if (
      next !== after.next_run_at &&
      store.crons.advance(row.id, after.next_run_at, next, iso(now))
    ) {
      events.record('cron.rescheduled', row.id, {
        cron_id: row.id,
        reason: 'poke',
        from: after.next_run_at,
        next_run_at: next,
      });
      deps.changed(afterCommit);
    }
    return toCron(store.crons.get(row.id)!);
  });
}
