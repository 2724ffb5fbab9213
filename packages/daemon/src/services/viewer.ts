import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { VIEWER_SESSION_TTL_MS } from '../http/viewer-auth.ts';
import type { Store } from '../store/index.ts';
import type { EventLog } from './events.ts';

/** How long a login link works: long enough to reach the browser it was opened in, no more. */
export const VIEWER_LINK_TTL_MS = 60_000;

export interface ViewerServiceOptions {
  linkTtlMs?: number | undefined;
  sessionTtlMs?: number | undefined;
  /** The clock, in ms since the epoch; tests move it to expire links and sessions. */
  now?: (() => number) | undefined;
}

// 32 random bytes in unpadded base64url, for link codes and session secrets alike.
const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** The `daemon_secrets` row the page keys are made under. */
const PAGE_KEY_NAME = 'viewer_page_key';

/**
 * The viewer's login: one-time link codes (kept in memory by their SHA-256 only: a link that
 * outlives a daemon restart is of no use, as it lives 60 s) and the sessions they open (kept in
 * the `viewer_sessions` table by their SHA-256, so a browser stays logged in across restarts).
 */
export function viewerService(store: Store, events: EventLog, opts: ViewerServiceOptions = {}) {
  const linkTtl = opts.linkTtlMs ?? VIEWER_LINK_TTL_MS;
  const sessionTtl = opts.sessionTtlMs ?? VIEWER_SESSION_TTL_MS;
  const now = opts.now ?? Date.now;
  /** Unused codes: the base64 SHA-256 of each → when it expires. */
  const links = new Map<string, number>();
  let keyOfKeys: Buffer | undefined;

  /**
   * A session's page key: an HMAC of its secret under a key of the daemon's (`daemon_secrets`),
   * so it needs no row of its own and cannot be worked out from the cookie.
   */
  function pageKey(secret: string): string {
    keyOfKeys ??= store.secrets.ensure(PAGE_KEY_NAME);
    return createHmac('sha256', keyOfKeys).update(`viewer-page:${secret}`).digest('base64url');
  }

  function dropExpiredLinks(at: number): void {
    for (const [key, expires] of links) if (expires <= at) links.delete(key);
  }

  return {
    /** A new link code and when it expires; only its digest is kept. */
    createLink(): { code: string; expiresAt: string } {
      const at = now();
      dropExpiredLinks(at);
      const code = randomBytes(32).toString('base64url');
      links.set(digest(code), at + linkTtl);
      return { code, expiresAt: new Date(at + linkTtl).toISOString() };
    },

    /**
     * Consumes `code` and opens a session: its secret, shown only here. A code is deleted before
     * anything else happens, in one synchronous step, so of two racing uses only the first gets
     * a session. `null` for an unknown, used or expired code.
     */
    login(code: string): { secret: string; key: string; expiresAt: string } | null {
      if (!SECRET.test(code)) return null;
      const key = digest(code);
      const expires = links.get(key);
      if (expires === undefined) return null;
      links.delete(key);
      const at = now();
      if (expires <= at) return null;
      const secret = randomBytes(32).toString('base64url');
      const createdAt = new Date(at).toISOString();
      const expiresAt = new Date(at + sessionTtl).toISOString();
      store.db.transaction(() => {
        store.viewerSessions.prune(createdAt);
        store.viewerSessions.insert({
          hash: rawDigest(secret),
          created_at: createdAt,
          expires_at: expiresAt,
        });
        events.record('viewer.session.created', null, {
          created_at: createdAt,
          expires_at: expiresAt,
        });
      });
      return { secret, key: pageKey(secret), expiresAt };
    },

    /**
     * Whether `key` is the page key of the session `secret`. A cookie goes to every port of its
     * host (RFC 6265 §8.5), so another local server the browser visits receives it too; the key
     * reaches only the viewer's page (the login redirect's fragment, which no server sees) and
     * stays in its origin's storage, which is per port. Compared in constant time.
     */
    keyMatches(secret: string, key: string): boolean {
      const want = Buffer.from(pageKey(secret));
      const got = Buffer.from(key);
      return got.length === want.length && timingSafeEqual(got, want);
    },

    /** Whether `secret` names a live session (known, not revoked, not expired). */
    isLive(secret: string): boolean {
      if (!SECRET.test(secret)) return false;
      const row = store.viewerSessions.byHash(rawDigest(secret));
      return row !== undefined && row.revoked_at === null && Date.parse(row.expires_at) > now();
    },

    /** Revokes the session of `secret`; false when there was no live one. */
    logout(secret: string): boolean {
      if (!SECRET.test(secret)) return false;
      const at = new Date(now()).toISOString();
      return store.db.transaction(() => {
        if (!store.viewerSessions.revoke(rawDigest(secret), at)) return false;
        events.record('viewer.session.revoked', null, { revoked_at: at });
        return true;
      });
    },
  };
}

export type ViewerService = ReturnType<typeof viewerService>;

function digest(secret: string): string {
  return hash('sha256', secret, 'base64');
}

function rawDigest(secret: string): Buffer {
  return Buffer.from(digest(secret), 'base64');
}
