import { formatMemorySpace, MEMORY_PRIVACY } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import { type MemoryDeps, spaceOf } from './documents.ts';
import {
  type MemoryKind,
  type MemoryPrivacy,
  type MemorySummary,
  toMemorySummary,
} from './store.ts';
import { readView, visible } from './visibility.ts';

export interface MemoryListFilter {
  space?: string | undefined;
  prefix?: string | undefined;
  kind?: MemoryKind | undefined;
  privacy?: MemoryPrivacy | undefined;
  after?: string | undefined;
  limit: number;
}

/** A space's documents by path, without content, as far as the caller sees them. */
export function listDocuments(
  deps: Pick<MemoryDeps, 'store'>,
  principal: Principal,
  f: MemoryListFilter,
): MemorySummary[] {
  const space = spaceOf(f.space);
  // A prefix names documents by text; the scope it needs is that of its whole directories.
  const prefix = f.prefix ?? '';
  const view = readView(deps, principal, space, prefix.slice(0, prefix.lastIndexOf('/') + 1));
  const levels = MEMORY_PRIVACY.filter(
    (p) => visible(view, { privacy: p }) && (f.privacy === undefined || p === f.privacy),
  );
  if (levels.length === 0) return [];
  return deps.store.memory
    .list({
      space: formatMemorySpace(space),
      prefix: f.prefix,
      kind: f.kind,
      privacy: levels,
      after: f.after,
      limit: f.limit,
    })
    .map(toMemorySummary);
}
