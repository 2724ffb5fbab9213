import type { Sight } from '../access/visibility.ts';
import type { CronDeps } from './deps.ts';
import { visibleCron } from './visibility.ts';

/** Deletes the cron; the nodes it made stay. */
export function deleteCron(
  { store, events, changed }: Pick<CronDeps, 'store' | 'events' | 'changed'>,
  id: string,
  sight: Sight,
): { id: string; deleted: true } {
  return store.db.transaction((afterCommit) => {
    const row = visibleCron(store, id, sight);
    store.crons.delete(row.id);
    events.record('cron.deleted', row.id, { cron_id: row.id });
    changed(afterCommit);
    return { id: row.id, deleted: true as const };
  });
}
