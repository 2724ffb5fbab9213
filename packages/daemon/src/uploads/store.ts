/**
 * Uploads (migration 012): the record of each file an app handed the daemon; the bytes are the
 * file `SVC_HOME/uploads/<id>`. Rows answer as the protocol's `Upload` DTO as they are.
 */
import type { Upload } from '@svc/protocol';
import type { Db } from '../store/db.ts';

export type { Upload };
export type UploadRow = Upload;

export function uploadStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO uploads (id, filename, media_type, size, sha256, app_id, created_at)
       VALUES (:id, :filename, :media_type, :size, :sha256, :app_id, :created_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM uploads WHERE id = ?'),
    delete: db.sqlite.prepare('DELETE FROM uploads WHERE id = ?'),
  };
  return {
    insert(row: UploadRow): void {
      q.insert.run({ ...row });
    },
    get(id: string): UploadRow | undefined {
      return q.get.get(id) as UploadRow | undefined;
    },
    delete(id: string): void {
      q.delete.run(id);
    },
  };
}

export type UploadStore = ReturnType<typeof uploadStore>;
