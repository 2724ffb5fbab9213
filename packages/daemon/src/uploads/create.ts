/**
 * Taking an upload: the bytes written first (`upload-files.ts`), then the record and its
 * `upload.created` event in one transaction; a record that fails to commit takes its file with it.
 */
import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { DEFAULT_MEDIA_TYPE, newId, UPLOAD_MAX_BYTES } from '@svc/protocol';
import { appOf } from '../access/app-caller.ts';
import { ApiError } from '../errors.ts';
import { decodeContent } from '../files/content.ts';
import type { Principal } from '../ports.ts';
import type { UploadDeps } from './deps.ts';
import type { Upload } from './store.ts';
import { writeUploadBytes } from './upload-files.ts';

export interface UploadMeta {
  filename: string;
  media_type?: string | undefined;
}

/** `uploads.create`: the bytes as base64 in JSON. */
export function createFromBase64(
  deps: UploadDeps,
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
  return createUpload(deps, bytes, body, principal, 'content_base64');
}

/**
 * `uploads.createRaw` (the request body is the bytes, `field` `body`) and `uploads.create`.
 */
export async function createUpload(
  { store, events, dir }: UploadDeps,
  bytes: Uint8Array,
  meta: UploadMeta,
  principal: Principal,
  field = 'body',
): Promise<Upload> {
  const appId = appOf(principal, 'uploads');
  if (bytes.byteLength > UPLOAD_MAX_BYTES) {
    throw new ApiError(
      'payload_too_large',
      `the file is ${bytes.byteLength} bytes; an upload takes at most ${UPLOAD_MAX_BYTES} (1 MiB)`,
      { field, received: bytes.byteLength },
    );
  }
  const id = newId('upload');
  const path = await writeUploadBytes(dir, id, bytes);
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
