import type { Scope } from '@svc/protocol';
import type { Share, ShareRow } from './store.ts';

/** What a share grants: the files scope of its path and mode. */
export function shareScope(row: Pick<ShareRow, 'mode' | 'path'>): Scope {
  return `svc:files:${row.mode}:user:${row.path}`;
}

export function toShare(row: ShareRow): Share {
  return { ...row, scope: shareScope(row) };
}
