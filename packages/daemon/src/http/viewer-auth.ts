import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../errors.ts';
import type { Principal, ViewerSessions } from '../ports.ts';
import type { Call } from './call.ts';
import { isAllowedHost } from './host-guard.ts';
import type { Listener } from './listener.ts';

/** A viewer session lasts a working day; the cookie's `Max-Age` says the same. */
export const VIEWER_SESSION_TTL_MS = 12 * 3600_000;

/**
 * The viewer's session cookie of the listener on `port` (docs/api-v1.md "Viewer"). Cookies are
 * per host, not per port (RFC 6265 §8.5), so two daemons on 127.0.0.1 would overwrite each other's
 * session under one name.
 */
export function viewerCookieName(port: number): string {
  return `svc_viewer_${port}`;
}
/**
 * The header every viewer fetch sends, holding the session's page key: a cross-site form or
 * image cannot send it, and a server on another port of the host, which the cookie reaches, does
 * not know it.
 */
export const VIEWER_HEADER = 'svc-viewer';

/** The value of cookie `name` in a `Cookie` header, or `null` (RFC 6265 §5.4: `name=value; …`). */
export function viewerCookie(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return null;
}

/**
 * Whether `origin` is this TCP listener's own: a name of its Host allow-list, over `http:`,
 * through the allow-list's own (cached) check. A browser serializes an Origin in lower case;
 * one in another case is no browser's, and is refused.
 */
export function isListenerOrigin(listener: Listener, origin: string): boolean {
  return (
    origin.startsWith('http://') &&
    origin === origin.toLowerCase() &&
    isAllowedHost(listener, origin.slice('http://'.length))
  );
}

/**
 * The principal of a request that carries no `Authorization` but a viewer cookie, on the TCP
 * listener: the owner, once the rules hold. A browser attaches the cookie to requests other sites
 * make too, and to every port of the host, so (a) an `Origin`, when sent, must be this listener's
 * (else 403 `forbidden`), and (b) every request, GET included, must carry the session's page key
 * as `Svc-Viewer`: a custom header needs a CORS preflight, which the daemon grants its own origin
 * only, and the key is known only to the page the login sent it to. A session that is unknown,
 * expired or revoked, or a missing or wrong key, is 401 `unauthorized`. `null` when the request
 * carries no viewer cookie.
 */
export function viewerPrincipal(
  listener: Listener,
  headers: IncomingHttpHeaders,
  viewer: ViewerSessions,
  owner: () => Principal | null,
): { principal: Principal; session: string } | null {
  if (listener.kind !== 'tcp' || headers.authorization !== undefined) return null;
  const session = viewerCookie(headers.cookie, viewerCookieName(listener.port));
  if (session === null) return null;
  const origin = headers.origin;
  if (origin !== undefined && !isListenerOrigin(listener, origin)) {
    throw new ApiError('forbidden', 'a viewer session is honoured from its own origin only', {
      field: 'Origin',
    });
  }
  const principal = viewer.isLive(session) ? owner() : null;
  if (principal === null) {
    throw new ApiError(
      'unauthorized',
      'the viewer session is unknown, expired or revoked; run `svc sys connect --open` again',
    );
  }
  const key = headers[VIEWER_HEADER];
  if (typeof key !== 'string' || !viewer.keyMatches(session, key)) {
    throw new ApiError(
      'unauthorized',
      "a viewer session's requests carry its page key as Svc-Viewer (the viewer page sends it)",
      { field: 'Svc-Viewer' },
    );
  }
  return { principal, session };
}

/**
 * Whether what opened a stream still holds: its viewer session (logout, expiry), or its bearer
 * token (revocation, expiry, a node token's node ending). A stream outlasts the request that
 * checked it, so it asks before every page and keepalive.
 */
export function streamAlive(
  c: Call,
  viewer: Pick<ViewerSessions, 'isLive'>,
  tokens: { stillLive(principal: Principal): boolean },
): () => boolean {
  const session = c.viewerSession;
  if (session !== null) return () => viewer.isLive(session);
  const principal = c.principal;
  return principal === null ? () => true : () => tokens.stillLive(principal);
}
