/**
 * The viewer's login: one-time link codes (`login-links.ts`) and the sessions they open
 * (`sessions.ts`), each with a page key (`page-keys.ts`) the page sends beside its cookie.
 */

import type { EventLog } from '../events/log.ts';
import { VIEWER_SESSION_TTL_MS } from '../http/viewer-auth.ts';
import type { Store } from '../store/index.ts';
import { loginLinks } from './login-links.ts';
import { pageKeys } from './page-keys.ts';
import { isLiveSession, openSession, revokeSession } from './sessions.ts';

/** How long a login link works: long enough to reach the browser it was opened in, no more. */
export const VIEWER_LINK_TTL_MS = 60_000;

export interface ViewerServiceOptions {
  linkTtlMs?: number | undefined;
  sessionTtlMs?: number | undefined;
  /** The clock, in ms since the epoch; tests move it to expire links and sessions. */
  now?: (() => number) | undefined;
}

export function viewerService(store: Store, events: EventLog, opts: ViewerServiceOptions = {}) {
  const sessionTtl = opts.sessionTtlMs ?? VIEWER_SESSION_TTL_MS;
  const now = opts.now ?? Date.now;
  const links = loginLinks(opts.linkTtlMs ?? VIEWER_LINK_TTL_MS, now);
  const keys = pageKeys(store);
  const deps = { store, events, now };
  return {
    createLink: () => links.create(),
    /**
     * Consumes `code` and opens a session: its secret, shown only here, and its page key.
     * `null` for an unknown, used or expired code.
     */
    login(code: string): { secret: string; key: string; expiresAt: string } | null {
      if (!links.consume(code)) return null;
      const { secret, expiresAt } = openSession(deps, sessionTtl);
      return { secret, key: keys.of(secret), expiresAt };
    },
    keyMatches: (secret: string, key: string) => keys.matches(secret, key),
    isLive: (secret: string) => isLiveSession(deps, secret),
    logout: (secret: string) => revokeSession(deps, secret),
  };
}

export type ViewerService = ReturnType<typeof viewerService>;
