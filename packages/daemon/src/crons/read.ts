import type { Sight } from '../access/visibility.ts';
import type { CronDeps } from './deps.ts';
import { type Cron, toCron } from './store.ts';
import { visibleCron } from './visibility.ts';

export function getCron({ store }: Pick<CronDeps, 'store'>, id: string, sight: Sight): Cron {
  return toCron(visibleCron(store, id, sight));
}

/** The crons `sight` sees, newest first. */
export function listCrons(
  { store }: Pick<CronDeps, 'store'>,
  sight: Sight,
  q: { state?: Cron['state'] | undefined; before?: string | undefined; limit: number },
): Cron[] {
  return store.crons.list({ sight, ...q }).map(toCron);
}
