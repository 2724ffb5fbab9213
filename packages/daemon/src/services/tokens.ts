import { hash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isFinal, type NodeState, newId, type Token } from '@svc/protocol';
import { isPublishSecret, publishPrincipal } from '../custom-objects/secrets.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { TokenKind, TokenRow } from '../store/tokens.ts';
import type { EventLog } from './events.ts';

export const TOKEN_PREFIXES: Readonly<Record<TokenKind, string>> = {
  owner: 'svc_owner_',
  app: 'svc_app_',
  node: 'svc_node_',
};

// 32 random bytes in unpadded base64url.
const SECRET = /^svc_(owner|app|node)_[A-Za-z0-9_-]{43}$/;

/** `last_used_at` is written at most this often per token, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/** A live token as `authenticate` needs it: built once, not per request. */
interface Cached {
  principal: Readonly<Principal>;
  /** `expires_at` in ms since the epoch; `Infinity` when it never expires. */
  expires: number;
}

/**
 * Tokens: minting, revoking and the per-request bearer check. The daemon is the sole writer of
 * the tokens table and every write goes through here, so the live tokens are held in a map from
 * the secret's hash, loaded at start and updated once each write commits: a request with a live
 * token costs a hash and a map lookup, not a query. Only a secret the map lacks is looked up in
 * the table.
 */
export function tokenService(store: Store, events: EventLog) {
  const lastTouched = new Map<string, number>();
  /**
   * Live tokens by the base64 SHA-256 of their secret, and that key by token id (to revoke). A
   * lookup takes time that depends on the secret's digest only, never on how much of a stored
   * secret a guess shares, so no constant-time compare is needed.
   */
  const live = new Map<string, Cached>();
  const keys = new Map<string, string>();
  /** The live owner token's key in `live`: a viewer session acts as its principal. */
  let ownerKey: string | null = null;
  for (const row of store.tokens.live()) cache(row);

  function cache(row: TokenRow): void {
    const key = Buffer.from(row.hash).toString('base64');
    live.set(key, cached(row));
    keys.set(row.id, key);
    if (row.kind === 'owner') ownerKey = key;
  }

  function uncache(id: string): void {
    const key = keys.get(id);
    if (key !== undefined) live.delete(key);
    if (key === ownerKey) ownerKey = null;
    keys.delete(id);
    lastTouched.delete(id);
  }

  function mint(
    kind: TokenKind,
    appId: string | null,
    scopes: string[] | null,
    expiresAt: string | null,
    nodeId: string | null = null,
  ) {
    const secret = TOKEN_PREFIXES[kind] + randomBytes(32).toString('base64url');
    const row = {
      id: newId('token'),
      kind,
      hash: Buffer.from(digest(secret), 'base64'),
      app_id: appId,
      node_id: nodeId,
      scopes: scopes === null ? null : JSON.stringify(scopes),
      created_at: new Date().toISOString(),
      expires_at: expiresAt,
    };
    const dto = store.db.transaction((afterCommit) => {
      // One owner token at a time: minting a new one (a rotation) revokes the old ones.
      if (kind === 'owner') {
        for (const old of store.tokens.revokeKind('owner', row.created_at)) {
          afterCommit(() => uncache(old.id)); // before the event's wake-up, as in `revoke`
          events.record('token.revoked', old.id, toDto(old));
        }
      }
      store.tokens.insert(row);
      const full = { ...row, revoked_at: null, last_used_at: null };
      const dto = toDto(full);
      events.record('token.created', row.id, dto);
      afterCommit(() => cache(full));
      return dto;
    });
    return { secret, dto };
  }

  return {
    /** Mints an app token; the secret is returned here once and never stored. */
    mintApp(appId: string, scopes: string[], expiresAt: string | null) {
      return mint('app', appId, scopes, expiresAt);
    },

    /**
     * Mints the token of one broker process: bound to `nodeId`, holding the node's scope list
     * (`null`: the owner's node, everything) and its app. Revoked when that broker ends.
     */
    mintNode(nodeId: string, appId: string | null, scopes: string[] | null) {
      return mint('node', appId, scopes, null, nodeId);
    },

    /**
     * The owner token: read from `owner.token` when it still names a live owner row, else minted
     * and written there (mode 0600). So the token survives restarts but a fresh database (or a
     * tampered file) gets a fresh one.
     */
    ensureOwner(file: string): Token {
      const existing = readSecret(file);
      const owner = existing === null ? undefined : lookup(existing, Date.now());
      if (owner?.kind === 'owner') {
        const row = store.tokens.byId(owner.tokenId);
        if (row !== undefined) {
          chmodSync(file, 0o600); // a file loosened since (`chmod 644`) is tightened again
          return toDto(row);
        }
      }
      const { secret, dto } = mint('owner', null, null, null);
      // Written whole under a fresh name, then renamed over: a file that was there keeps its mode
      // on a rewrite, and a loose one would hand the new secret to whoever may read it.
      const draft = `${file}.${process.pid}`;
      rmSync(draft, { force: true });
      writeFileSync(draft, `${secret}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(draft, file);
      return dto;
    },

    /** The principal of a bearer secret, or `null` when it is unknown, revoked or expired. */
    authenticate(secret: string): Principal | null {
      if (isPublishSecret(secret)) return publishPrincipal(store, secret) ?? null;
      const now = Date.now();
      const principal = lookup(secret, now);
      if (principal === undefined) return null;
      if (now - (lastTouched.get(principal.tokenId) ?? 0) >= TOUCH_INTERVAL_MS) {
        lastTouched.set(principal.tokenId, now);
        store.tokens.touch(principal.tokenId, new Date(now).toISOString());
      }
      return principal;
    },

    /**
     * Whether `principal`'s token still holds: not revoked, not expired, and for a node token
     * its node still works. A stream outlives the request that checked its token, so it asks
     * this before each page and keepalive.
     */
    stillLive(principal: Readonly<Principal>): boolean {
      // A publish token lives as long as its object; unregistering ends the object's streams.
      if (principal.kind === 'publish') return true;
      const key = keys.get(principal.tokenId);
      let entry = key === undefined ? undefined : live.get(key);
      if (entry === undefined) {
        // Written by another connection (tests): read, as `unknown` does.
        const row = store.tokens.byId(principal.tokenId);
        entry = row === undefined || row.revoked_at !== null ? undefined : cached(row);
      }
      if (entry === undefined || entry.expires <= Date.now()) return false;
      if (principal.kind !== 'node') return true;
      const state =
        principal.nodeId === null ? undefined : store.nodes.get(principal.nodeId)?.state;
      return state !== undefined && !isFinal(state);
    },

    /** The state of a node token's node; `undefined` once the node is gone (pruned, deleted). */
    nodeState(nodeId: string): NodeState | undefined {
      return store.nodes.get(nodeId)?.state;
    },

    /**
     * The owner's principal without its secret: what a live viewer session acts as (the person,
     * in their browser). `null` only while no owner token exists, which `ensureOwner` prevents.
     */
    ownerPrincipal(): Readonly<Principal> | null {
      return ownerKey === null ? null : (live.get(ownerKey)?.principal ?? null);
    },

    list(after: string, limit: number): { data: Token[]; hasMore: boolean } {
      const rows = store.tokens.list(after, limit + 1);
      return { data: rows.slice(0, limit).map(toDto), hasMore: rows.length > limit };
    },

    get(id: string): Token | undefined {
      const row = store.tokens.byId(id);
      return row === undefined ? undefined : toDto(row);
    },

    /**
     * Revokes; revoking an already revoked token is a no-op that answers the same DTO. The owner
     * token is rotated instead (delete `owner.token`, restart), so the owner is never locked out.
     */
    revoke(id: string): Token | undefined {
      return store.db.transaction((afterCommit) => {
        if (store.tokens.byId(id)?.kind === 'owner') {
          throw new ApiError(
            'invalid_state',
            'the owner token cannot be revoked; to rotate it, delete owner.token and restart the daemon',
          );
        }
        if (store.tokens.revoke(id, new Date().toISOString())) {
          const dto = toDto(store.tokens.byId(id)!);
          // Before the event's wake-up (after-commit callbacks run in order): a stream or wait
          // woken by it must find the token gone.
          afterCommit(() => uncache(id));
          events.record('token.revoked', id, dto);
          return dto;
        }
        const row = store.tokens.byId(id);
        return row === undefined ? undefined : toDto(row);
      });
    },
  };

  /** The principal of a live, unexpired secret. */
  function lookup(secret: string, now: number): Readonly<Principal> | undefined {
    if (!SECRET.test(secret)) return undefined;
    const key = digest(secret);
    const entry = live.get(key) ?? unknown(key);
    return entry !== undefined && entry.expires > now ? entry.principal : undefined;
  }

  /**
   * A token missing from the map: revoked, never minted, or written by another connection (only
   * tests do that; the daemon is the sole writer). Read from the table and not cached, so a
   * token this service did not write is never answered from a stale copy.
   */
  function unknown(key: string): Cached | undefined {
    const row = store.tokens.byHash(Buffer.from(key, 'base64'));
    return row === undefined || row.revoked_at !== null ? undefined : cached(row);
  }
}

export type TokenService = ReturnType<typeof tokenService>;

function cached(row: TokenRow): Cached {
  const principal: Principal = {
    tokenId: row.id,
    kind: row.kind,
    appId: row.app_id,
    nodeId: row.node_id,
    scopes: parseScopes(row.scopes),
    expiresAt: row.expires_at,
  };
  // Shared by every request of the token: frozen, so no handler can change what the next sees.
  if (principal.scopes !== null) Object.freeze(principal.scopes);
  return {
    principal: Object.freeze(principal),
    expires: row.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.expires_at),
  };
}

function toDto(row: TokenRow): Token {
  return {
    id: row.id,
    kind: row.kind,
    app_id: row.app_id,
    scopes: parseScopes(row.scopes),
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

function parseScopes(text: string | null): string[] | null {
  return text === null ? null : (JSON.parse(text) as string[]);
}

/** The SHA-256 of a secret in base64: a string digest is the cheapest to compute and to key by. */
function digest(secret: string): string {
  return hash('sha256', secret, 'base64');
}

function readSecret(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}
