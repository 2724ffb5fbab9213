/** What every memory operation shares: the space a request names, and how a miss answers. */
import { type MemorySpace, parseMemorySpace } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { type MemoryRow, toMemorySummary } from './store.ts';

/** What the memory operations use. */
export interface MemoryDeps {
  store: Pick<Store, 'db' | 'memory' | 'nodes'>;
  events: EventLog;
}

/** A document named by its space (default the person's) and path. */
export interface MemoryDocumentRef {
  space?: string | undefined;
  path: string;
  if_version?: number | undefined;
}

/**
 * The space named (default the person's). The routes' schemas checked it and the path already;
 * this only parses the space.
 */
export function spaceOf(value: string | undefined): MemorySpace {
  const space = parseMemorySpace(value ?? 'user');
  if (space === null) {
    throw new ApiError('validation_failed', `space ${JSON.stringify(value)} is not a space`, {
      field: 'space',
    });
  }
  return space;
}

export function notFound(space: string, path: string): ApiError {
  return new ApiError('not_found', `no document ${JSON.stringify(path)} in ${space}`, {
    field: 'path',
  });
}

/** `if_version` must name the version the document is at (0: it must not exist). */
export function checkVersion(current: number, wanted: number | undefined): void {
  if (wanted === undefined || wanted === current) return;
  const now = current === 0 ? 'does not exist' : `is at version ${current}`;
  throw new ApiError('conflict', `the document ${now}, not version ${wanted}`, {
    field: 'if_version',
    received: wanted,
  });
}

/** The `memory.document` event of a write, in its transaction. */
export function recordChange(
  events: EventLog,
  row: Omit<MemoryRow, 'content'>,
  action: 'created' | 'updated' | 'deleted',
  by: Principal,
): void {
  events.record('memory.document', row.space, {
    action,
    ...toMemorySummary(row),
    by: { kind: by.kind, app_id: by.appId, node_id: by.nodeId },
  });
}
