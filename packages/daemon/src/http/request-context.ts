import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { REQUEST_ID_HEADER } from '@svc/protocol';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../lifecycle/logger.ts';
import { authenticate, matchRoute } from './auth.ts';
import { corsHeaders, corsOrigin, preflightResponse } from './cors.ts';
import type { AppEnv } from './env.ts';
import { errorResponse, handleError } from './errors.ts';
import { isAllowedHost } from './host-guard.ts';
import { idempotency } from './idempotency.ts';
import { readInput } from './input.ts';

// A caller's id is echoed only when it is short and inert in a log line or a header.
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Node lowercases the names of `IncomingMessage.headers`.
const REQUEST_ID = REQUEST_ID_HEADER.toLowerCase();

/**
 * The daemon's whole request path, in one middleware so each request pays for one pass: request
 * id (caller's if sane, else new) on every response; 503 once draining; Host allow-list; CORS;
 * route lookup in the protocol's table; auth; input validation; Idempotency-Key; then the route's
 * handler (`next`: Hono's own match of the same path, made before any middleware runs). Headers are read from node's `IncomingMessage`, never through a
 * Fetch `Headers` (costly to build); an error anywhere past the Host check is answered as
 * `app.onError` would, CORS headers included.
 *
 * One log line per request (method, path, status, time; never headers or query), successful
 * reads included: the request lines are the log an operator reads to learn whether a call
 * reached the daemon and what it answered, and a `GET` is as much a call as a `POST`. They are
 * cheap since the log is buffered (`createLogger`).
 */
export function requestPath(ctx: DaemonContext): MiddlewareHandler<AppEnv> {
  const idempotent = idempotency(ctx.store.idempotency);
  // The line holds only the fields below, none a secret, so it skips the logger's redaction
  // (a third of a line's cost): that guards lines whose fields come from elsewhere.
  let access: Logger | undefined;

  /** Route, auth, input, Idempotency-Key and handler; throws an `ApiError` to refuse. */
  async function routed(
    c: Context<AppEnv>,
    headers: IncomingHttpHeaders,
    next: Next,
  ): Promise<Response> {
    const method = c.req.method;
    const path = c.req.path;
    const match = matchRoute(method, path);
    if (match === null) {
      return errorResponse(c, new ApiError('not_found', `no route ${method} ${path}`));
    }
    if ('allowed' in match) {
      const allow = match.allowed.join(', ');
      const error = new ApiError('method_not_allowed', `${path} allows ${allow}, not ${method}`);
      return errorResponse(c, error, { Allow: allow });
    }
    const route = match.route;
    c.set('route', route);
    c.set('principal', authenticate(match, headers.authorization, ctx.tokens));
    const input = await readInput(c, route, match.params, headers['content-type']);
    c.set('input', input);
    const key = headers['idempotency-key'];
    // Hono turns a handler's throw into its error response (and a route of the table this
    // daemon has no handler for into `notFound`'s) before `next` returns.
    return idempotent(c, typeof key === 'string' ? key : undefined, async () => {
      await next();
      return c.res;
    });
  }

  return async (c, next) => {
    const started = performance.now();
    const bindings = c.env as unknown as HttpBindings;
    const headers = bindings.incoming.headers;
    const given = headers[REQUEST_ID];
    const requestId = typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('log', ctx.logger);
    // Set on the node response that `@hono/node-server` writes, so every answer carries it (an
    // error, a stream, a handler's own Response) and the Fetch Response's headers, costly to
    // materialise and copy back, are never touched.
    bindings.outgoing.setHeader(REQUEST_ID_HEADER, requestId);
    const listener = c.env.listener;
    const host = headers.host;
    let res: Response;
    if (ctx.draining()) {
      res = errorResponse(c, new ApiError('not_ready', 'the daemon is shutting down'), {
        Connection: 'close',
      });
    } else if (!isAllowedHost(listener, host)) {
      // DNS rebinding (see `isAllowedHost`): refused before anything else, CORS included.
      const shown = JSON.stringify(host?.toLowerCase() ?? '');
      res = errorResponse(
        c,
        new ApiError('forbidden', `Host ${shown} is not served here`, { field: 'Host' }),
      );
    } else {
      const origin = corsOrigin(listener, headers.origin);
      if (
        origin !== undefined &&
        c.req.method === 'OPTIONS' &&
        headers['access-control-request-method'] !== undefined
      ) {
        res = preflightResponse(listener, origin);
      } else {
        try {
          res = await routed(c, headers, next);
        } catch (error) {
          res = handleError(error as Error, c);
        }
        if (origin !== undefined) corsHeaders(res, listener, origin);
      }
    }
    // Assigning the answer `next` already set would make Hono copy it.
    if (!c.finalized || c.res !== res) c.res = res;
    access ??= ctx.logger.child({}, { redact: [] });
    access.info(
      {
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status: res.status,
        ms: Math.round(performance.now() - started),
        listener: listener.kind,
      },
      'request',
    );
  };
}
