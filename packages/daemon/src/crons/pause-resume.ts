import type { Sight } from '../access/visibility.ts';
import type { CronDeps } from './deps.ts';
import { nextRunAt } from './schedule.ts';
import { type Cron, toCron } from './store.ts';
import { visibleCron } from './visibility.ts';

type Deps = Pick<CronDeps, 'store' | 'events' | 'changed'>;

/** Idempotent: a paused cron answers as it is. */
export function pauseCron({ store, events, changed }: Deps, id: string, sight: Sight): Cron {
  return store.db.transaction((afterCommit) => {
    const row = visibleCron(store, id, sight);
    if (row.state === 'paused') return toCron(row);
    store.crons.setSchedule(row.id, 'paused', null, new Date().toISOString());
    events.record('cron.paused', row.id, { cron_id: row.id });
    changed(afterCommit);
    return toCron(store.crons.get(row.id)!);
  });
}

/** Idempotent: an active cron answers as it is. The next time counts from now. */
export function resumeCron({ store, events, changed }: Deps, id: string, sight: Sight): Cron {
  return store.db.transaction((afterCommit) => {
    const row = visibleCron(store, id, sight);
    if (row.state === 'active') return toCron(row);
    const now = new Date();
    const next = nextRunAt(row.schedule, row.timezone, now);
    store.crons.setSchedule(row.id, 'active', next, now.toISOString());
    events.record('cron.resumed', row.id, { cron_id: row.id, next_run_at: next });
    changed(afterCommit);
    return toCron(store.crons.get(row.id)!);
  });
}
