/**
 * Who sees a human request: the routes' rule (`own-app-or-node` in protocol's human table) as
 * the caller's sight. The owner sees every request, an app its own, a node those it asked.
 */
import { type Sight, sees } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { HumanRequestRow } from './store.ts';

/** Request `id` if `sight` sees it; else 404, as if it did not exist. */
export function visibleRequest(
  store: Pick<Store, 'human'>,
  id: string,
  sight: Sight,
): HumanRequestRow {
  const row = store.human.request(id);
  if (row === undefined || !sees(sight, row)) {
    throw new ApiError('not_found', `no human request ${id}`, { field: 'id' });
  }
  return row;
}
