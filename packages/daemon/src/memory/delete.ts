import { formatMemorySpace } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import {
  checkVersion,
  type MemoryDeps,
  type MemoryDocumentRef,
  notFound,
  recordChange,
  spaceOf,
} from './documents.ts';
import { visible, writeView } from './visibility.ts';

/** Deletes a document, with the rights a write needs; one transaction with its event. */
export function deleteDocument(deps: MemoryDeps, principal: Principal, ref: MemoryDocumentRef) {
  const { store, events } = deps;
  const space = spaceOf(ref.space);
  const path = ref.path;
  const view = writeView(deps, principal, space, path);
  const name = formatMemorySpace(space);
  return store.db.transaction(() => {
    const old = store.memory.get(name, path);
    if (old === undefined || !visible(view, old)) throw notFound(name, path);
    checkVersion(old.version, ref.if_version);
    store.memory.delete(name, path);
    recordChange(events, old, 'deleted', principal);
    return { space: name, path, deleted: true as const };
  });
}
