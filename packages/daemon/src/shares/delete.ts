import { appOf } from '../access/app-caller.ts';
import { type Sight, sees } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { ShareDeps } from './deps.ts';
import type { ShareRow } from './store.ts';

/** A share is seen by the apps it was made to and by (`own-app` on either column). */
const madeBy = (sight: Sight, row: ShareRow) => sees(sight, { app_id: row.created_by });

/** Ends a share: the owner, or the app that made it (the app it was made to sees it, 403). */
export function deleteShare(
  { store, events, now }: ShareDeps,
  id: string,
  principal: Principal,
  sight: Sight,
): { id: string; deleted: true } {
  return store.db.transaction(() => {
    appOf(principal, 'shares');
    const row = store.shares.get(id, new Date(now()).toISOString());
    if (row === undefined || !(madeBy(sight, row) || sees(sight, row))) {
      throw new ApiError('not_found', `no share ${id}`, { field: 'id' });
    }
    if (!madeBy(sight, row)) {
      throw new ApiError(
        'forbidden',
        `share ${id} was made by ${row.created_by ?? 'the owner'}; only its creator or the owner can end it`,
      );
    }
    store.shares.delete(row.id);
    events.record('share.deleted', row.id, { share_id: row.id, app_id: row.app_id });
    return { id: row.id, deleted: true as const };
  });
}
