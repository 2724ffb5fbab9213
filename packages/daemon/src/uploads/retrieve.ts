import { appOf } from '../access/app-caller.ts';
import { type Sight, sees } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { UploadDeps } from './deps.ts';
import type { Upload } from './store.ts';

/** The upload's record if the caller sees it (`own-app`); else 404. A node token is 403. */
export function retrieveUpload(
  { store }: Pick<UploadDeps, 'store'>,
  id: string,
  principal: Principal,
  sight: Sight,
): Upload {
  appOf(principal, 'uploads');
  const row = store.uploads.get(id);
  if (row === undefined || !sees(sight, row)) {
    throw new ApiError('not_found', `no upload ${id}`, { field: 'id' });
  }
  return row;
}
