import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { CronRow } from './store.ts';

/**
 * Who a fire creates its node as: the owner, or the creating app through its token as it is
 * now, so a revoked or expired token fires nothing and the node stays inside the token's list.
 * The owner's token rotates (a new `owner.token`), so an owner's cron is not bound to one.
 */
export function creatorOf(store: Pick<Store, 'tokens'>, row: CronRow, nowMs: number): Principal {
  if (row.creator_kind === 'owner') {
    return {
      tokenId: row.creator_token_id,
      kind: 'owner',
      appId: null,
      nodeId: null,
      scopes: null,
      expiresAt: null,
    };
  }
  const token = store.tokens.byId(row.creator_token_id);
  const ended =
    token === undefined
      ? 'no longer exists'
      : token.revoked_at !== null
        ? 'was revoked'
        : token.expires_at !== null && Date.parse(token.expires_at) <= nowMs
          ? 'expired'
          : null;
  if (token === undefined || ended !== null) {
    throw new ApiError(
      'forbidden',
      `the token that created cron ${row.id} ${ended}; the cron creates nothing until it is made again with a live token`,
    );
  }
  return {
    tokenId: token.id,
    kind: 'app',
    appId: token.app_id,
    nodeId: null,
    scopes: token.scopes ?? [],
    expiresAt: token.expires_at,
  };
}
