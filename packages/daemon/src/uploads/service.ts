/**
 * Uploads (docs/api-v1.md "Uploads and attachments"): files an app hands the daemon. The bytes
 * are `SVC_HOME/uploads/<id>` (0600, written as a temp file, fsynced and renamed, so a reader never
 * sees half a file); the record and its `upload.created` event are one transaction after the
 * rename. A crash between the two leaves a file without a record, which the next start removes.
 */
import { join } from 'node:path';
import type { Sight } from '../access/visibility.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { createFromBase64, createUpload, type UploadMeta } from './create.ts';
import { deleteUpload } from './delete.ts';
import { readUpload } from './read-bytes.ts';
import { retrieveUpload } from './retrieve.ts';
import { prepareUploadDir } from './upload-files.ts';

export interface UploadServiceDeps {
  store: Store;
  events: EventLog;
  home: string;
}

export function uploadService({ store, events, home }: UploadServiceDeps) {
  const deps = { store, events, dir: join(home, 'uploads') };
  prepareUploadDir(deps.dir, store);
  return {
    createBase64: (body: UploadMeta & { content_base64: string }, principal: Principal) =>
      createFromBase64(deps, body, principal),
    createRaw: (bytes: Uint8Array, meta: UploadMeta, principal: Principal) =>
      createUpload(deps, bytes, meta, principal),
    get: (id: string, principal: Principal, sight: Sight) =>
      retrieveUpload(deps, id, principal, sight),
    delete: (id: string, principal: Principal, sight: Sight) =>
      deleteUpload(deps, id, principal, sight),
    read: (id: string) => readUpload(deps, id),
  };
}

export type UploadService = ReturnType<typeof uploadService>;
