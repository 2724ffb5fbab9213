/**
 * Who sees a cron: the routes' rule (`own-app` in protocol's crons table) as the caller's sight.
 * The owner sees every cron, an app its own, a node token none (it cannot make one).
 */
import { routeById } from '@svc/protocol';
import { type Sight, sees, sightOf } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { CronRow } from './store.ts';

/** Cron `id` if `sight` sees it; else 404, as if it did not exist. */
export function visibleCron(store: Pick<Store, 'crons'>, id: string, sight: Sight): CronRow {
  const row = store.crons.get(id);
  if (row === undefined || !sees(sight, row)) {
    throw new ApiError('not_found', `no cron ${id}`, { field: 'id' });
  }
  return row;
}

/**
 * The sight of `principal` under the crons list's rule, for a caller outside the routes (the
 * canvas's attention): the rule is read from the table, so it stays the routes' own.
 */
export function cronSight(principal: Principal): Sight {
  const rule = routeById('crons.list').visibility;
  if (rule === undefined) throw new Error('crons.list declares no visibility');
  // No crons rule is by tree, so no node's root is ever asked for.
  return sightOf(rule, principal, () => null);
}
