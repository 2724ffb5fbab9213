import {
  formatMemorySpace,
  MEMORY_CONTENT_MAX_BYTES,
  MEMORY_TITLE_MAX,
  type memoryWriteBodySchema,
} from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { checkVersion, type MemoryDeps, recordChange, spaceOf } from './documents.ts';
import { type MemoryDocument, type MemoryRow, toMemoryDocument } from './store.ts';
import { MEMORY_MANAGE, visible, writeView } from './visibility.ts';

export type MemoryWriteBody = z.output<typeof memoryWriteBodySchema>;

/** Creates or replaces a document; one transaction with its `memory.document` event. */
export function writeDocument(
  deps: MemoryDeps,
  principal: Principal,
  body: MemoryWriteBody,
): MemoryDocument {
  const { store, events } = deps;
  const space = spaceOf(body.space);
  const path = body.path;
  const view = writeView(deps, principal, space, path);
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
    if (view === 'public' && (privacy !== 'public' || (old !== undefined && !visible(view, old)))) {
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
    recordChange(events, row, old === undefined ? 'created' : 'updated', principal);
    return toMemoryDocument(row);
  });
}

function titleOf(path: string): string {
  return (path.slice(path.lastIndexOf('/') + 1) || path).slice(0, MEMORY_TITLE_MAX);
}
