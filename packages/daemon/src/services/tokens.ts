import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { newId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { TokenKind, TokenRow } from '../store/tokens.ts';
import type { EventLog } from './events.ts';

/** Who a request acts for, once its bearer is verified. */
export interface Principal {
  tokenId: string;
  kind: TokenKind;
  appId: string | null;
  /** A node token's node: the only node whose broker routes it may call. */
  nodeId: string | null;
  /** `null` = everything (the owner). */
  scopes: string[] | null;
  expiresAt: string | null;
}

/** The wire form of a token: everything but the secret. */
export interface TokenDto {
  id: string;
  kind: TokenKind;
  app_id: string | null;
  scopes: string[] | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export const TOKEN_PREFIXES: Readonly<Record<TokenKind, string>> = {
  owner: 'svc_owner_',
  app: 'svc_app_',
  node: 'svc_node_',
};

// 32 random bytes in unpadded base64url.
const SECRET = /^svc_(owner|app|node)_[A-Za-z0-9_-]{43}$/;

/** `last_used_at` is written at most this often per token, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

export function tokenService(store: Store, events: EventLog) {
  const lastTouched = new Map<string, number>();

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
      hash: sha256(secret),
      app_id: appId,
      node_id: nodeId,
      scopes: scopes === null ? null : JSON.stringify(scopes),
      created_at: new Date().toISOString(),
      expires_at: expiresAt,
    };
    const dto = store.db.transaction(() => {
      // One owner token at a time: minting a new one (a rotation) revokes the old ones.
      if (kind === 'owner') {
        for (const old of store.tokens.revokeKind('owner', row.created_at)) {
          events.record('token.revoked', old.id, toDto(old));
        }
      }
      store.tokens.insert(row);
      const dto = toDto({ ...row, revoked_at: null, last_used_at: null });
      events.record('token.created', row.id, dto);
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
    ensureOwner(file: string): TokenDto {
      const existing = readSecret(file);
      if (existing !== null) {
        const row = lookup(existing);
        if (row !== undefined && row.kind === 'owner' && isUsable(row, Date.now()))
          return toDto(row);
      }
      const { secret, dto } = mint('owner', null, null, null);
      writeFileSync(file, `${secret}\n`, { mode: 0o600 });
      return dto;
    },

    /** The principal of a bearer secret, or `null` when it is unknown, revoked or expired. */
    authenticate(secret: string): Principal | null {
      const row = lookup(secret);
      const now = Date.now();
      if (row === undefined || !isUsable(row, now)) return null;
      if (now - (lastTouched.get(row.id) ?? 0) >= TOUCH_INTERVAL_MS) {
        lastTouched.set(row.id, now);
        store.tokens.touch(row.id, new Date(now).toISOString());
      }
      return {
        tokenId: row.id,
        kind: row.kind,
        appId: row.app_id,
        nodeId: row.node_id,
        scopes: parseScopes(row.scopes),
        expiresAt: row.expires_at,
      };
    },

    list(after: string, limit: number): { data: TokenDto[]; hasMore: boolean } {
      const rows = store.tokens.list(after, limit + 1);
      return { data: rows.slice(0, limit).map(toDto), hasMore: rows.length > limit };
    },

    get(id: string): TokenDto | undefined {
      const row = store.tokens.byId(id);
      return row === undefined ? undefined : toDto(row);
    },

    /**
     * Revokes; revoking an already revoked token is a no-op that answers the same DTO. The owner
     * token is rotated instead (delete `owner.token`, restart), so the owner is never locked out.
     */
    revoke(id: string): TokenDto | undefined {
      return store.db.transaction(() => {
        if (store.tokens.byId(id)?.kind === 'owner') {
          throw new ApiError(
            'invalid_state',
            'the owner token cannot be revoked; to rotate it, delete owner.token and restart the daemon',
          );
        }
        if (store.tokens.revoke(id, new Date().toISOString())) {
          const dto = toDto(store.tokens.byId(id)!);
          events.record('token.revoked', id, dto);
          return dto;
        }
        const row = store.tokens.byId(id);
        return row === undefined ? undefined : toDto(row);
      });
    },
  };

  function lookup(secret: string): TokenRow | undefined {
    if (!SECRET.test(secret)) return undefined;
    const hash = sha256(secret);
    const row = store.tokens.byHash(hash);
    // The index lookup already matched; the constant-time compare keeps the final decision free
    // of early-exit timing should the lookup ever become a scan or a prefix match.
    if (row === undefined || !timingSafeEqual(Buffer.from(row.hash), hash)) return undefined;
    return row;
  }
}

export type TokenService = ReturnType<typeof tokenService>;

function isUsable(row: TokenRow, now: number): boolean {
  return row.revoked_at === null && (row.expires_at === null || Date.parse(row.expires_at) > now);
}

function toDto(row: TokenRow): TokenDto {
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

function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function readSecret(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}
