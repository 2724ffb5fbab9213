import { isFinal } from '@svc/protocol';
import { isPublishSecret, publishPrincipal } from '../custom-objects/secrets.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { cachedToken, type LiveTokens } from './live-tokens.ts';

/** `last_used_at` is written at most this often per token, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface TokenReadDeps {
  store: Store;
  live: LiveTokens;
}

/** The principal of a bearer secret, or `null` when it is unknown, revoked or expired. */
export function authenticate({ store, live }: TokenReadDeps, secret: string): Principal | null {
  if (isPublishSecret(secret)) return publishPrincipal(store, secret) ?? null;
  const now = Date.now();
  const principal = live.lookup(secret, now);
  if (principal === undefined) return null;
  if (now - (live.lastTouched.get(principal.tokenId) ?? 0) >= TOUCH_INTERVAL_MS) {
    live.lastTouched.set(principal.tokenId, now);
    store.tokens.touch(principal.tokenId, new Date(now).toISOString());
  }
  return principal;
}

/**
 * Whether `principal`'s token still holds: not revoked, not expired, and for a node token its
 * node still works. A stream outlives the request that checked its token, so it asks this before
 * each page and keepalive.
 */
export function stillLive({ store, live }: TokenReadDeps, principal: Readonly<Principal>): boolean {
  // A publish token lives as long as its object; unregistering ends the object's streams.
  if (principal.kind === 'publish') return true;
  let entry = live.byId(principal.tokenId);
  if (entry === undefined) {
    // Written by another connection (tests): read, as an unknown secret is.
    const row = store.tokens.byId(principal.tokenId);
    entry = row === undefined || row.revoked_at !== null ? undefined : cachedToken(row);
  }
  if (entry === undefined || entry.expires <= Date.now()) return false;
  if (principal.kind !== 'node') return true;
  const state = principal.nodeId === null ? undefined : store.nodes.get(principal.nodeId)?.state;
  return state !== undefined && !isFinal(state);
}
