import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, Svc-Request-Id';
const EXPOSE_HEADERS = 'Svc-Request-Id, Idempotent-Replayed, Allow, WWW-Authenticate';

/**
 * CORS for the daemon's own origin only (the viewer served on this listener, by either loopback
 * name). Any other origin gets no CORS header at all, so the browser withholds our answers from
 * it; its preflight (Fetch standard, CORS protocol) is answered 204 without them.
 */
export function cors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const listener = c.env.listener;
    const origin = c.req.header('origin');
    if (listener.kind !== 'tcp' || origin === undefined) return next();
    const own = [`http://127.0.0.1:${listener.port}`, `http://localhost:${listener.port}`];
    const allowed = own.includes(origin);
    const preflight =
      c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined;
    if (preflight) {
      const headers: Record<string, string> = { Vary: 'Origin' };
      if (allowed) {
        headers['Access-Control-Allow-Origin'] = origin;
        headers['Access-Control-Allow-Methods'] = 'GET, POST, PUT, PATCH, DELETE';
        headers['Access-Control-Allow-Headers'] = ALLOW_HEADERS;
        headers['Access-Control-Max-Age'] = '600';
      }
      return c.body(null, 204, headers);
    }
    await next();
    c.res.headers.append('Vary', 'Origin');
    if (allowed) {
      c.res.headers.set('Access-Control-Allow-Origin', origin);
      c.res.headers.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
  };
}
