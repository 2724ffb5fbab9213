import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.ts';
import type { AppEnv, Listener } from './env.ts';
import { errorResponse } from './errors.ts';

/**
 * DNS-rebinding guard: a page on `evil.example` whose name was re-pointed at 127.0.0.1 reaches
 * our port with `Host: evil.example:<port>`, so only loopback names (and the bound host) with
 * the right port are served on TCP. The unix socket is unreachable from a browser; there the
 * Host is `localhost` or absent (HTTP/1.1 clients of a socket often send no name at all).
 */
export function hostGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    if (!isAllowedHost(c.env.listener, host)) {
      return errorResponse(
        c,
        new ApiError('forbidden', `Host ${JSON.stringify(host ?? '')} is not served here`, {
          field: 'Host',
        }),
      );
    }
    await next();
  };
}

export function isAllowedHost(listener: Listener, host: string | undefined): boolean {
  if (listener.kind === 'unix') return host === undefined || host === 'localhost';
  if (host === undefined) return false;
  return allowedHosts(listener).includes(host);
}

/** `Host` values accepted on a TCP listener; also the origins CORS allows (with `http://`). */
export function allowedHosts(listener: { host: string; port: number }): string[] {
  const names = ['127.0.0.1', 'localhost', '[::1]', hostLiteral(listener.host)];
  return [...new Set(names)].map((name) => `${name}:${listener.port}`);
}

/** An IP literal as it appears in a URL authority: IPv6 in brackets (RFC 3986 §3.2.2). */
export function hostLiteral(host: string): string {
  return host.includes(':') ? `[${host}]` : host.toLowerCase();
}
