/**
 * Memory documents (migration 011). Rows answer as the protocol's document DTOs through
 * `toMemoryDocument` and `toMemorySummary`; a list never reads the content column.
 */
import type { MemoryDocument, MemoryDocumentSummary as MemorySummary } from '@svc/protocol';
import type { Db } from '../store/db.ts';

export type { MemoryDocument, MemorySummary };
export type MemoryKind = MemoryDocument['kind'];
export type MemoryPrivacy = MemoryDocument['privacy'];

export interface MemoryRow {
  space: string;
  path: string;
  title: string;
  kind: MemoryKind;
  privacy: MemoryPrivacy;
  media_type: string | null;
  content: string;
  size: number;
  version: number;
  created_at: string;
  updated_at: string;
}

export type MemorySummaryRow = Omit<MemoryRow, 'content'>;

export interface MemoryFilter {
  space: string;
  prefix?: string | undefined;
  kind?: MemoryKind | undefined;
  /** Only these levels (the caller's view, cut by the query's `privacy`). */
  privacy: readonly MemoryPrivacy[];
  /** Only paths after this one (the previous page's cursor). */
  after?: string | undefined;
  limit: number;
}

const SUMMARY = `space, path, title, kind, privacy, media_type, size, version, created_at, updated_at`;

export function memoryStore(db: Db) {
  const q = {
    get: db.sqlite.prepare('SELECT * FROM memory_documents WHERE space = ? AND path = ?'),
    // Paths compare as SQLite's BINARY collation orders them, which is also the cursor's order.
    list: db.sqlite.prepare(
      `SELECT ${SUMMARY} FROM memory_documents
       WHERE space = :space
         AND (:prefix IS NULL OR substr(path, 1, length(:prefix)) = :prefix)
         AND (:kind IS NULL OR kind = :kind)
         AND privacy IN (SELECT value FROM json_each(:privacy))
         AND (:after IS NULL OR path > :after)
       ORDER BY path LIMIT :limit`,
    ),
    upsert: db.sqlite.prepare(
      `INSERT INTO memory_documents (space, path, title, kind, privacy, media_type, content, size,
         version, created_at, updated_at)
       VALUES (:space, :path, :title, :kind, :privacy, :media_type, :content, :size, :version,
         :created_at, :updated_at)
       ON CONFLICT (space, path) DO UPDATE SET title = excluded.title, kind = excluded.kind,
         privacy = excluded.privacy, media_type = excluded.media_type, content = excluded.content,
         size = excluded.size, version = excluded.version, updated_at = excluded.updated_at`,
    ),
    delete: db.sqlite.prepare('DELETE FROM memory_documents WHERE space = ? AND path = ?'),
    deleteNodeSpaces: db.sqlite.prepare(
      `DELETE FROM memory_documents
       WHERE space IN (SELECT 'node:' || value FROM json_each(?))`,
    ),
  };
  return {
    get(space: string, path: string): MemoryRow | undefined {
      return q.get.get(space, path) as MemoryRow | undefined;
    },
    /** By path, ascending. */
    list(f: MemoryFilter): MemorySummaryRow[] {
      return q.list.all({
        space: f.space,
        prefix: f.prefix ?? null,
        kind: f.kind ?? null,
        privacy: JSON.stringify(f.privacy),
        after: f.after ?? null,
        limit: f.limit,
      }) as unknown as MemorySummaryRow[];
    },
    /** Inserts, or replaces all but `created_at`; call inside `db.transaction`. */
    put(row: MemoryRow): void {
      q.upsert.run({ ...row });
    },
    delete(space: string, path: string): void {
      q.delete.run(space, path);
    },
    /**
     * Deletes every document of these nodes' own spaces (`node:<id>`), as their rows go: nobody
     * but the owner could reach them after. Call inside the transaction that deletes the nodes.
     */
    deleteNodeSpaces(nodeIds: readonly string[]): number {
      return Number(q.deleteNodeSpaces.run(JSON.stringify(nodeIds)).changes);
    },
  };
}

export type MemoryStore = ReturnType<typeof memoryStore>;

export function toMemorySummary(row: MemorySummaryRow): MemorySummary {
  return {
    space: row.space,
    path: row.path,
    title: row.title,
    kind: row.kind,
    privacy: row.privacy,
    media_type: row.media_type,
    size: row.size,
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toMemoryDocument(row: MemoryRow): MemoryDocument {
  return { ...toMemorySummary(row), content: row.content };
}
