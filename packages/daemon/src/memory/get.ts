import { formatMemorySpace } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import { type MemoryDeps, type MemoryDocumentRef, notFound, spaceOf } from './documents.ts';
import { type MemoryDocument, toMemoryDocument } from './store.ts';
import { readView, visible } from './visibility.ts';

/** One document with its content; one the caller may not see answers as a missing one. */
export function getDocument(
  deps: Pick<MemoryDeps, 'store'>,
  principal: Principal,
  ref: MemoryDocumentRef,
): MemoryDocument {
  const space = spaceOf(ref.space);
  const path = ref.path;
  const view = readView(deps, principal, space, path);
  const name = formatMemorySpace(space);
  const row = deps.store.memory.get(name, path);
  if (row === undefined || !visible(view, row)) throw notFound(name, path);
  return toMemoryDocument(row);
}
