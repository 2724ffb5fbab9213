import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UploadDeps } from './deps.ts';
import type { Upload } from './store.ts';

/** The record and bytes of an upload, whoever asks (the attachment link is the check). */
export async function readUpload(
  { store, dir }: Pick<UploadDeps, 'store' | 'dir'>,
  id: string,
): Promise<{ upload: Upload; bytes: Buffer } | null> {
  const upload = store.uploads.get(id);
  if (upload === undefined) return null;
  const bytes = await readFile(join(dir, id)).catch(() => null);
  return bytes === null ? null : { upload, bytes };
}
