import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Sight } from '../access/visibility.ts';
import type { Principal } from '../ports.ts';
import type { UploadDeps } from './deps.ts';
import { retrieveUpload } from './retrieve.ts';

/** The record and its file go; every link to it stops working. */
export function deleteUpload(
  deps: UploadDeps,
  id: string,
  principal: Principal,
  sight: Sight,
): { id: string; deleted: true } {
  const { store, events, dir } = deps;
  return store.db.transaction((afterCommit) => {
    const row = retrieveUpload(deps, id, principal, sight);
    store.uploads.delete(row.id);
    events.record('upload.deleted', row.id, { upload_id: row.id });
    afterCommit(() => rmSync(join(dir, row.id), { force: true }));
    return { id: row.id, deleted: true as const };
  });
}
