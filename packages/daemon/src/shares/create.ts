/**
 * Making a share: the path normalized, its scope within the creator's own files scopes, then
 * the row and its `share.created` event; dead shares are forgotten on the way.
 */
import {
  ceilingViolation,
  newId,
  normalizeAbsolutePath,
  type shareCreateBodySchema,
  tryParseScope,
} from '@svc/protocol';
import type { z } from 'zod';
import { appOf } from '../access/app-caller.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { ShareDeps } from './deps.ts';
import { shareScope, toShare } from './share-scope.ts';
import type { Share, ShareRow } from './store.ts';

export type ShareCreateBody = z.output<typeof shareCreateBodySchema>;

export function createShare(
  { store, events, now }: ShareDeps,
  body: ShareCreateBody,
  principal: Principal,
): Share {
  const creator = appOf(principal, 'shares');
  const norm = normalizeAbsolutePath(body.path);
  if (!norm.ok) {
    throw new ApiError('validation_failed', `path ${norm.reason}`, { field: 'path' });
  }
  const scope = shareScope({ mode: body.mode, path: norm.path });
  const parsed = tryParseScope(scope);
  if (!parsed.ok) {
    throw new ApiError('validation_failed', `path cannot be shared: ${parsed.reason}`, {
      field: 'path',
    });
  }
  // The owner's `null` holds every path; an app shares only what its own files scopes reach.
  if (ceilingViolation(principal.scopes, [scope]) !== null) {
    throw new ApiError(
      'scope_missing',
      `a share never exceeds its creator: this token's files scopes do not cover '${scope}'`,
      { field: scope, received: principal.scopes ?? [] },
    );
  }
  return store.db.transaction(() => {
    const at = now();
    store.shares.deleteDead(new Date(at).toISOString());
    const row: ShareRow = {
      id: newId('share'),
      app_id: body.app_id,
      path: norm.path,
      mode: body.mode,
      created_by: creator,
      created_at: new Date(at).toISOString(),
      expires_at:
        body.expires_in_s === undefined
          ? null
          : new Date(at + body.expires_in_s * 1000).toISOString(),
    };
    // An app's share lives as long as the token that made it; the owner's needs none.
    store.shares.insert(row, creator === null ? null : principal.tokenId);
    const share = toShare(row);
    events.record('share.created', row.id, { share });
    return share;
  });
}
