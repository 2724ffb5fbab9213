import type { NodeState, Token } from '@svc/protocol';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { authenticate, stillLive } from './authenticate.ts';
import { toTokenDto } from './dto.ts';
import { LiveTokens } from './live-tokens.ts';
import { mintToken } from './mint.ts';
import { ensureOwnerToken } from './owner-token.ts';
import { revokeToken } from './revoke.ts';

/**
 * Tokens: minting, revoking and the per-request bearer check, over the live tokens held in
 * memory (`live-tokens.ts`), loaded here at start.
 */
export function tokenService(store: Store, events: EventLog) {
  const live = new LiveTokens(store.tokens);
  const deps = { store, events, live };
  return {
    /** Mints an app token; the secret is returned here once and never stored. */
    mintApp: (appId: string, scopes: string[], expiresAt: string | null) =>
      mintToken(deps, 'app', appId, scopes, expiresAt),
    /**
     * Mints the token of one broker process: bound to `nodeId`, holding the node's scope list
     * (`null`: the owner's node, everything) and its app. Revoked when that broker ends.
     */
    mintNode: (nodeId: string, appId: string | null, scopes: string[] | null) =>
      mintToken(deps, 'node', appId, scopes, null, nodeId),
    ensureOwner: (file: string): Token => ensureOwnerToken(deps, file),
    authenticate: (secret: string): Principal | null => authenticate(deps, secret),
    stillLive: (principal: Readonly<Principal>): boolean => stillLive(deps, principal),
    /** The state of a node token's node; `undefined` once the node is gone (pruned, deleted). */
    nodeState: (nodeId: string): NodeState | undefined => store.nodes.get(nodeId)?.state,
    /**
     * The owner's principal without its secret: what a live viewer session acts as (the person,
     * in their browser). `null` only while no owner token exists, which `ensureOwner` prevents.
     */
    ownerPrincipal: (): Readonly<Principal> | null => live.ownerPrincipal(),
    /** Ordered by id, `limit` rows after `after`. */
    list: (after: string, limit: number): Token[] =>
      store.tokens.list(after, limit).map(toTokenDto),
    get(id: string): Token | undefined {
      const row = store.tokens.byId(id);
      return row === undefined ? undefined : toTokenDto(row);
    },
    revoke: (id: string): Token | undefined => revokeToken(deps, id),
  };
}

export type TokenService = ReturnType<typeof tokenService>;
