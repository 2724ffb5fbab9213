import type { Reply } from './call.ts';
import type { Listener } from './listener.ts';

// What @svc/client sends, its retries included (`Svc-Retry-Count`), and what it reads back;
// `Svc-Viewer` is the viewer's CSRF header (viewer-auth.ts).
const ALLOW_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, Svc-Request-Id, Svc-Retry-Count, Svc-Viewer';
const EXPOSE_HEADERS =
  'Svc-Request-Id, Idempotent-Replayed, Allow, WWW-Authenticate, Retry-After, X-Should-Retry, Svc-Keepalive-Ms';

/**
 * CORS for the daemon's own origin only (the viewer served on this listener, by either loopback
 * name). Any other origin gets no CORS header at all, so the browser withholds our answers from
 * it; its preflight (Fetch standard, CORS protocol) is answered 204 without them.
 */
export function isOwnOrigin(listener: { port: number }, origin: string): boolean {
  return (
    origin === `http://127.0.0.1:${listener.port}` || origin === `http://localhost:${listener.port}`
  );
}

/** The `Origin` CORS applies to: only a TCP listener serves a browser. */
export function corsOrigin(listener: Listener, origin: string | undefined): string | undefined {
  return listener.kind === 'tcp' ? origin : undefined;
}

/** The 204 answer to a preflight from `origin`. */
export function preflightResponse(listener: Listener, origin: string): Reply {
  const headers: Record<string, string> = { Vary: 'Origin' };
  if (listener.kind === 'tcp' && isOwnOrigin(listener, origin)) {
    headers['Access-Control-Allow-Origin'] = origin;
    headers['Access-Control-Allow-Methods'] = 'GET, POST, PUT, PATCH, DELETE';
    headers['Access-Control-Allow-Headers'] = ALLOW_HEADERS;
    headers['Access-Control-Max-Age'] = '600';
  }
  return { status: 204, body: null, headers };
}

/** Marks an answer to a request from `origin`: `Vary` always, the grant for our own origin. */
export function corsHeaders(headers: Record<string, string>, listener: Listener, origin: string) {
  headers.Vary = 'Origin';
  if (listener.kind === 'tcp' && isOwnOrigin(listener, origin)) {
    headers['Access-Control-Allow-Origin'] = origin;
    headers['Access-Control-Expose-Headers'] = EXPOSE_HEADERS;
  }
}
