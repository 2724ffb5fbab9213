/**
 * Memory (docs/api-v1.md "Memory"): documents in spaces, read through a filter of who calls and
 * written through a check of its scopes (SPEC "Scope vocabulary", rules 2 and 3; DESIGN §5).
 *
 * What a caller sees of a space is a view: `all`, or `public` (the person's space without
 * `svc:memory:manage:user`). A space the caller may not read at all is refused before any
 * document is looked at, so the refusal says nothing about documents; inside a space, a document
 * the view hides answers exactly as a missing one (404), its existence being private too.
 * Every write is one transaction with its `memory.document` event.
 */
import {
  formatMemorySpace,
  listCovers,
  MEMORY_CONTENT_MAX_BYTES,
  MEMORY_PRIVACY,
  MEMORY_TITLE_MAX,
  type MemorySpace,
  type MemoryWriteBody,
  parseMemorySpace,
  type Scope,
  tryParseScope,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import {
  type MemoryDocument,
  type MemoryKind,
  type MemoryPrivacy,
  type MemoryRow,
  type MemorySummary,
  toMemoryDocument,
  toMemorySummary,
} from '../store/memory.ts';
import type { EventLog } from './events.ts';

export type { MemoryWriteBody };

/** `all` levels, or only `public` ones (the person's space without the manage scope). */
type View = 'all' | 'public';

export const MEMORY_MANAGE: Scope = 'svc:memory:manage:user';

export interface MemoryListFilter {
  space?: string | undefined;
  prefix?: string | undefined;
  kind?: MemoryKind | undefined;
  privacy?: MemoryPrivacy | undefined;
  after?: string | undefined;
  limit: number;
}

export interface MemoryDocumentRef {
  space?: string | undefined;
  path: string;
  if_version?: number | undefined;
}

export interface MemoryServiceDeps {
  store: Store;
  events: EventLog;
}

export function memoryService({ store, events }: MemoryServiceDeps) {
  /** Who may read a node's space besides the owner: the node itself and the app it belongs to. */
  function checkNodeSpace(principal: Principal, nodeId: string): void {
    if (principal.kind === 'node' && principal.nodeId === nodeId) return;
    // The app sees the node as `nodes.retrieve` does (its own, and any node of its trees).
    if (principal.kind === 'app' && principal.appId !== null) {
      if (store.nodes.visible(nodeId, { kind: 'app', appId: principal.appId }) !== undefined)
        return;
    }
    throw new ApiError(
      'forbidden',
      `the documents of node:${nodeId} are that node's, its app's and the owner's only`,
      { field: 'space' },
    );
  }

  /** An app's own space (any profile of it) needs no scope, for the app and for its nodes. */
  function ownApp(principal: Principal, space: MemorySpace & { owner: 'app' }): boolean {
    return principal.appId !== null && principal.appId === space.appId;
  }

  function requireScope(principal: Principal, wanted: Scope): void {
    if (listCovers(principal.scopes, wanted)) return;
    throw new ApiError('scope_missing', `this token's scopes do not cover '${wanted}'`, {
      field: wanted,
      received: principal.scopes ?? [],
    });
  }

  /**
   * @param path the document read, or the directory a list covers (`''`: the whole space)
   */
  function readView(principal: Principal, space: MemorySpace, path: string): View {
    if (principal.kind === 'owner') return 'all';
    switch (space.owner) {
      case 'user':
        // Rule 3 frees `client.memory` (apps) of scopes; a node is an agent the person did not
        // grant the documents to unless its scopes say so (rule 2 exempts only its own space).
        if (principal.kind === 'node') requireScope(principal, userScope('read', path));
        return listCovers(principal.scopes, MEMORY_MANAGE) ? 'all' : 'public';
      case 'app':
        if (!ownApp(principal, space)) {
          requireScope(principal, `svc:memory:read:${formatMemorySpace(space)}`);
        }
        return 'all';
      case 'node':
        checkNodeSpace(principal, space.nodeId);
        return 'all';
    }
  }

  /** The view a writer has: it may only create, change or delete documents it can see. */
  function writeView(principal: Principal, space: MemorySpace, path: string): View {
    if (principal.kind === 'owner') return 'all';
    switch (space.owner) {
      case 'user':
        requireScope(principal, userScope('rw', path));
        return listCovers(principal.scopes, MEMORY_MANAGE) ? 'all' : 'public';
      case 'app':
        if (!ownApp(principal, space)) {
          requireScope(principal, `svc:memory:rw:${formatMemorySpace(space)}`);
        }
        return 'all';
      case 'node':
        checkNodeSpace(principal, space.nodeId);
        return 'all';
    }
  }

  function visible(view: View, row: { privacy: MemoryPrivacy }): boolean {
    return view === 'all' || row.privacy === 'public';
  }

  function notFound(space: string, path: string): ApiError {
    return new ApiError('not_found', `no document ${JSON.stringify(path)} in ${space}`, {
      field: 'path',
    });
  }

  function checkVersion(current: number, wanted: number | undefined): void {
    if (wanted === undefined || wanted === current) return;
    const now = current === 0 ? 'does not exist' : `is at version ${current}`;
    throw new ApiError('conflict', `the document ${now}, not version ${wanted}`, {
      field: 'if_version',
      received: wanted,
    });
  }

  function record(row: MemoryRow, action: 'created' | 'updated' | 'deleted', by: Principal) {
    events.record('memory.document', row.space, {
      action,
      ...toMemorySummary(row),
      by: { kind: by.kind, app_id: by.appId, node_id: by.nodeId },
    });
  }

  return {
    list(principal: Principal, f: MemoryListFilter): MemorySummary[] {
      const space = spaceOf(f.space);
      // A prefix names documents by text; the scope it needs is that of its whole directories.
      const prefix = f.prefix ?? '';
      const view = readView(principal, space, prefix.slice(0, prefix.lastIndexOf('/') + 1));
      const levels = MEMORY_PRIVACY.filter(
        (p) => visible(view, { privacy: p }) && (f.privacy === undefined || p === f.privacy),
      );
      if (levels.length === 0) return [];
      return store.memory
        .list({
          space: formatMemorySpace(space),
          prefix: f.prefix,
          kind: f.kind,
          privacy: levels,
          after: f.after,
          limit: f.limit,
        })
        .map(toMemorySummary);
    },

    get(principal: Principal, ref: MemoryDocumentRef): MemoryDocument {
      const space = spaceOf(ref.space);
      const path = ref.path;
      const view = readView(principal, space, path);
      const name = formatMemorySpace(space);
      const row = store.memory.get(name, path);
      if (row === undefined || !visible(view, row)) throw notFound(name, path);
      return toMemoryDocument(row);
    },

    write(principal: Principal, body: MemoryWriteBody): MemoryDocument {
      const space = spaceOf(body.space);
      const path = body.path;
      const view = writeView(principal, space, path);
      const size = Buffer.byteLength(body.content, 'utf8');
      if (size > MEMORY_CONTENT_MAX_BYTES) {
        throw new ApiError(
          'payload_too_large',
          `content is ${size} bytes; a document holds at most ${MEMORY_CONTENT_MAX_BYTES} (256 KiB)`,
          { field: 'content', received: size },
        );
      }
      const name = formatMemorySpace(space);
      return store.db.transaction(() => {
        const old = store.memory.get(name, path);
        const privacy = body.privacy ?? old?.privacy ?? (view === 'all' ? 'private' : 'public');
        if (
          view === 'public' &&
          (privacy !== 'public' || (old !== undefined && !visible(view, old)))
        ) {
          // Only public documents are this writer's to touch: it cannot read the others back.
          throw new ApiError(
            'scope_missing',
            `this token writes only public documents of the person's space; others need '${MEMORY_MANAGE}'`,
            { field: MEMORY_MANAGE, received: principal.scopes ?? [] },
          );
        }
        checkVersion(old?.version ?? 0, body.if_version);
        const at = new Date().toISOString();
        const row: MemoryRow = {
          space: name,
          path,
          title: body.title ?? old?.title ?? titleOf(path),
          kind: body.kind ?? old?.kind ?? 'knowledge',
          privacy,
          media_type: body.media_type === undefined ? (old?.media_type ?? null) : body.media_type,
          content: body.content,
          size,
          version: (old?.version ?? 0) + 1,
          created_at: old?.created_at ?? at,
          updated_at: at,
        };
        store.memory.put(row);
        record(row, old === undefined ? 'created' : 'updated', principal);
        return toMemoryDocument(row);
      });
    },

    delete(principal: Principal, ref: MemoryDocumentRef) {
      const space = spaceOf(ref.space);
      const path = ref.path;
      const view = writeView(principal, space, path);
      const name = formatMemorySpace(space);
      return store.db.transaction(() => {
        const old = store.memory.get(name, path);
        if (old === undefined || !visible(view, old)) throw notFound(name, path);
        checkVersion(old.version, ref.if_version);
        store.memory.delete(name, path);
        record(old, 'deleted', principal);
        return { space: name, path, deleted: true as const };
      });
    },
  };
}

export type MemoryService = ReturnType<typeof memoryService>;

/**
 * The space named (default the person's). The routes' schemas checked it and the path already;
 * this only parses the space.
 */
function spaceOf(value: string | undefined): MemorySpace {
  const space = parseMemorySpace(value ?? 'user');
  if (space === null) {
    throw new ApiError('validation_failed', `space ${JSON.stringify(value)} is not a space`, {
      field: 'space',
    });
  }
  return space;
}

function titleOf(path: string): string {
  return (path.slice(path.lastIndexOf('/') + 1) || path).slice(0, MEMORY_TITLE_MAX);
}

/**
 * `svc:memory:<access>:user:/<p>` for the longest prefix `p` of `path` a scope can name (a
 * scope's path holds no whitespace or comma), so any scope covering the whole path covers it too;
 * the whole space when not even the first segment fits.
 */
function userScope(access: 'read' | 'rw', path: string): Scope {
  const segments = path.split('/').filter((segment) => segment !== '');
  for (let n = segments.length; n > 0; n--) {
    const scope = `svc:memory:${access}:user:/${segments.slice(0, n).join('/')}`;
    if (tryParseScope(scope).ok) return scope;
  }
  return `svc:memory:${access}:user`;
}
