/**
 * Shares (docs/api-v1.md "Shares"): the owner, or an app holding `svc:files:share`, lets another
 * app reach one host path. While a share lives, the files routes treat the app's tokens as if
 * they held `svc:files:<mode>:user:<path>` (`filesScopes`), and every other rule of the files
 * check stays as it is: the realpath of the target must lie under the path, so no link leads
 * out. A share never exceeds its creator: an app must itself hold a files scope covering the
 * path at that mode, and its share grants only while the token that made it lives (revoked or
 * expired, the share is dead). Neither needs a timer: a dead share is never read back, so it
 * stops granting at once (and the next create forgets it).
 */
import {
  ceilingViolation,
  newId,
  normalizeAbsolutePath,
  type Scope,
  type ShareCreateBody,
  tryParseScope,
} from '@svc/protocol';
import { appOf, sees } from '../access/app-caller.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { Share, ShareRow } from '../store/shares.ts';
import type { EventLog } from './events.ts';

export type { ShareCreateBody };

/** What a share grants: the files scope of its path and mode. */
export function shareScope(row: Pick<ShareRow, 'mode' | 'path'>): Scope {
  return `svc:files:${row.mode}:user:${row.path}`;
}

export function toShare(row: ShareRow): Share {
  return { ...row, scope: shareScope(row) };
}

export function shareService(store: Store, events: EventLog, now = () => Date.now()) {
  const iso = () => new Date(now()).toISOString();

  function visible(id: string, principal: Principal): ShareRow {
    appOf(principal, 'shares');
    const row = store.shares.get(id, iso());
    const party =
      row !== undefined && (sees(principal, row.created_by) || sees(principal, row.app_id));
    if (!party) throw new ApiError('not_found', `no share ${id}`, { field: 'id' });
    return row!;
  }

  return {
    create(body: ShareCreateBody, principal: Principal): Share {
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
    },

    /** Live shares, newest first: the owner's every one, an app's those made to it or by it. */
    list(
      principal: Principal,
      q: { appId?: string | undefined; before?: string | undefined; limit: number },
    ): Share[] {
      const party = appOf(principal, 'shares') ?? undefined;
      return store.shares
        .list({ party, appId: q.appId, before: q.before, limit: q.limit, now: iso() })
        .map(toShare);
    },

    /** Ends a share: the owner, or the app that made it (the app it was made to sees it, 403). */
    delete(id: string, principal: Principal): { id: string; deleted: true } {
      return store.db.transaction(() => {
        const row = visible(id, principal);
        if (!sees(principal, row.created_by)) {
          throw new ApiError(
            'forbidden',
            `share ${id} was made by ${row.created_by ?? 'the owner'}; only its creator or the owner can end it`,
          );
        }
        store.shares.delete(row.id);
        events.record('share.deleted', row.id, { share_id: row.id, app_id: row.app_id });
        return { id: row.id, deleted: true as const };
      });
    },

    /**
     * The files scopes a caller holds for the files routes: its token's list, plus, for an app
     * token, the scope of every live share made to its app, each once. The owner's `null` stays
     * everything.
     */
    filesScopes(principal: Principal): readonly Scope[] | null {
      const own = principal.scopes;
      if (own === null || principal.kind !== 'app' || principal.appId === null) return own;
      const granted = store.shares.grantedTo(principal.appId, iso());
      return granted.length === 0 ? own : [...new Set([...own, ...granted.map(shareScope)])];
    },
  };
}

export type ShareService = ReturnType<typeof shareService>;
