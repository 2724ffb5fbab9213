/**
 * The live tokens, held in memory. The daemon is the sole writer of the tokens table and every
 * write goes through this folder, so the live tokens are held in a map from the secret's hash,
 * loaded at start and updated once each write commits: a request with a live token costs a hash
 * and a map lookup, not a query. Only a secret the map lacks is looked up in the table.
 */
import type { Principal } from '../ports.ts';
import { digest, isTokenSecret } from './secret.ts';
import type { TokenRow, TokenStore } from './store.ts';

/** A live token as `authenticate` needs it: built once, not per request. */
export interface CachedToken {
  principal: Readonly<Principal>;
  /** `expires_at` in ms since the epoch; `Infinity` when it never expires. */
  expires: number;
}

export class LiveTokens {
  /**
   * Live tokens by the base64 SHA-256 of their secret, and that key by token id (to revoke). A
   * lookup takes time that depends on the secret's digest only, never on how much of a stored
   * secret a guess shares, so no constant-time compare is needed.
   */
  readonly #live = new Map<string, CachedToken>();
  readonly #keys = new Map<string, string>();
  /** When each token's `last_used_at` was last written. */
  readonly lastTouched = new Map<string, number>();
  /** The live owner token's key in `#live`: a viewer session acts as its principal. */
  #ownerKey: string | null = null;
  readonly #tokens: TokenStore;

  constructor(tokens: TokenStore) {
    this.#tokens = tokens;
    for (const row of tokens.live()) this.add(row);
  }

  add(row: TokenRow): void {
    const key = Buffer.from(row.hash).toString('base64');
    this.#live.set(key, cachedToken(row));
    this.#keys.set(row.id, key);
    if (row.kind === 'owner') this.#ownerKey = key;
  }

  remove(id: string): void {
    const key = this.#keys.get(id);
    if (key !== undefined) this.#live.delete(key);
    if (key === this.#ownerKey) this.#ownerKey = null;
    this.#keys.delete(id);
    this.lastTouched.delete(id);
  }

  /** The cached entry of a token by id, if it is held. */
  byId(id: string): CachedToken | undefined {
    const key = this.#keys.get(id);
    return key === undefined ? undefined : this.#live.get(key);
  }

  /** The principal of a live, unexpired secret. */
  lookup(secret: string, now: number): Readonly<Principal> | undefined {
    if (!isTokenSecret(secret)) return undefined;
    const key = digest(secret);
    const entry = this.#live.get(key) ?? this.#unknown(key);
    return entry !== undefined && entry.expires > now ? entry.principal : undefined;
  }

  ownerPrincipal(): Readonly<Principal> | null {
    return this.#ownerKey === null ? null : (this.#live.get(this.#ownerKey)?.principal ?? null);
  }

  /**
   * A token missing from the map: revoked, never minted, or written by another connection (only
   * tests do that; the daemon is the sole writer). Read from the table and not cached, so a
   * token this service did not write is never answered from a stale copy.
   */
  #unknown(key: string): CachedToken | undefined {
    const row = this.#tokens.byHash(Buffer.from(key, 'base64'));
    return row === undefined || row.revoked_at !== null ? undefined : cachedToken(row);
  }
}

export function cachedToken(row: TokenRow): CachedToken {
  const principal: Principal = {
    tokenId: row.id,
    kind: row.kind,
    appId: row.app_id,
    nodeId: row.node_id,
    // A copy: the row's list may also be in an answer or an event.
    scopes: row.scopes === null ? null : [...row.scopes],
    expiresAt: row.expires_at,
  };
  // Shared by every request of the token: frozen, so no handler can change what the next sees.
  if (principal.scopes !== null) Object.freeze(principal.scopes);
  return {
    principal: Object.freeze(principal),
    expires: row.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.expires_at),
  };
}
