/**
 * Uploads (docs/api-v1.md "Uploads and attachments"): files an app hands the daemon. The bytes
 * are `SVC_HOME/uploads/<id>` (0600, written as a temp file, fsynced and renamed, so a reader never
 * sees half a file); the record and its `upload.created` event are one transaction after the
 * rename. A crash between the two leaves a file without a record, which the next start removes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_MEDIA_TYPE, isId, newId, UPLOAD_MAX_BYTES } from '@svc/protocol';
import { appOf } from '../access/app-caller.ts';
import { type Sight, sees } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import { decodeContent } from '../files/content.ts';
import type { Principal } from '../ports.ts';
import type { EventLog } from '../services/events.ts';
import type { Store } from '../store/index.ts';
import type { Upload } from './store.ts';

export interface UploadMeta {
  filename: string;
  media_type?: string | undefined;
}

export interface UploadServiceDeps {
  store: Store;
  events: EventLog;
  home: string;
}

export function uploadService({ store, events, home }: UploadServiceDeps) {
  const dir = join(home, 'uploads');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  sweep();

  /** Temp files and files whose record never committed (a crash between the two). */
  function sweep(): void {
    for (const name of readdirSync(dir)) {
      if (!isId('upload', name) || store.uploads.get(name) === undefined) {
        rmSync(join(dir, name), { force: true, recursive: true });
      }
    }
  }

  function visible(id: string, principal: Principal, sight: Sight): Upload {
    appOf(principal, 'uploads');
    const row = store.uploads.get(id);
    if (row === undefined || !sees(sight, row)) {
      throw new ApiError('not_found', `no upload ${id}`, { field: 'id' });
    }
    return row;
  }

  /** Writes `bytes` to `<dir>/<id>` atomically: temp file, fsync, rename, directory fsync. */
  async function writeBytes(id: string, bytes: Uint8Array): Promise<string> {
    const target = join(dir, id);
    const temp = join(dir, `.${id}.${randomBytes(4).toString('hex')}.tmp`);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await open(temp, flags, 0o600);
    let renamed = false;
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
      renamed = true;
    } finally {
      if (!renamed) await unlink(temp).catch(() => {});
    }
    const dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await dirHandle
      .sync()
      .catch(() => {})
      .finally(() => dirHandle.close());
    return target;
  }

  async function create(bytes: Uint8Array, meta: UploadMeta, principal: Principal, field: string) {
    const appId = appOf(principal, 'uploads');
    if (bytes.byteLength > UPLOAD_MAX_BYTES) {
      throw new ApiError(
        'payload_too_large',
        `the file is ${bytes.byteLength} bytes; an upload takes at most ${UPLOAD_MAX_BYTES} (1 MiB)`,
        { field, received: bytes.byteLength },
      );
    }
    const id = newId('upload');
    const path = await writeBytes(id, bytes);
    const row: Upload = {
      id,
      filename: meta.filename,
      media_type: meta.media_type ?? DEFAULT_MEDIA_TYPE,
      size: bytes.byteLength,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      app_id: appId,
      created_at: new Date().toISOString(),
    };
    try {
      store.db.transaction(() => {
        store.uploads.insert(row);
        events.record('upload.created', id, { upload: row });
      });
    } catch (error) {
      await unlink(path).catch(() => {});
      throw error;
    }
    return row;
  }

  return {
    /** `uploads.create`: the bytes as base64 in JSON. */
    createBase64(
      body: UploadMeta & { content_base64: string },
      principal: Principal,
    ): Promise<Upload> {
      appOf(principal, 'uploads');
      let bytes: Buffer;
      try {
        bytes = decodeContent(body.content_base64, 'base64');
      } catch (error) {
        if (error instanceof ApiError) {
          throw new ApiError(error.code, 'content_base64 is not valid base64', {
            field: 'content_base64',
          });
        }
        throw error;
      }
      return create(bytes, body, principal, 'content_base64');
    },

    /** `uploads.createRaw`: the request body is the bytes. */
    createRaw(bytes: Uint8Array, meta: UploadMeta, principal: Principal): Promise<Upload> {
      return create(bytes, meta, principal, 'body');
    },

    get(id: string, principal: Principal, sight: Sight): Upload {
      return visible(id, principal, sight);
    },

    /** The record and its file go; every link to it stops working. */
    delete(id: string, principal: Principal, sight: Sight): { id: string; deleted: true } {
      return store.db.transaction((afterCommit) => {
        const row = visible(id, principal, sight);
        store.uploads.delete(row.id);
        events.record('upload.deleted', row.id, { upload_id: row.id });
        afterCommit(() => rmSync(join(dir, row.id), { force: true }));
        return { id: row.id, deleted: true as const };
      });
    },

    /** The record and bytes of an upload, whoever asks (the attachment link is the check). */
    async read(id: string): Promise<{ upload: Upload; bytes: Buffer } | null> {
      const upload = store.uploads.get(id);
      if (upload === undefined) return null;
      const bytes = await readFile(join(dir, id)).catch(() => null);
      return bytes === null ? null : { upload, bytes };
    },
  };
}

export type UploadService = ReturnType<typeof uploadService>;
