import { randomUUID } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import { REQUEST_ID_HEADER } from '@svc/protocol';
import type { MiddlewareHandler } from 'hono';
import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../lifecycle/logger.ts';
import type { AppEnv } from './env.ts';
import { errorResponse } from './errors.ts';

// A caller's id is echoed only when it is short and inert in a log line or a header.
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * First middleware: the request id (caller's if sane, else new) on every response, one log line
 * per request (method, path, status, time; never headers or query), and 503 once draining.
 *
 * Every request is logged at `info`, successful reads included: the request lines are the log an
 * operator reads to learn whether a call reached the daemon and what it answered, and a `GET` is
 * as much a call as a `POST`. They are cheap since the log is buffered (`createLogger`).
 */
export function requestContext(ctx: DaemonContext): MiddlewareHandler<AppEnv> {
  let access: Logger | undefined;
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header(REQUEST_ID_HEADER);
    const requestId = given !== undefined && CALLER_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('log', ctx.logger);
    // Set on the node response that `@hono/node-server` writes, so every answer carries it (an
    // error, a stream, a handler's own Response) and the Fetch Response's headers, costly to
    // materialise and copy back, are never touched.
    (c.env as unknown as HttpBindings).outgoing.setHeader(REQUEST_ID_HEADER, requestId);
    if (ctx.draining()) {
      c.res = errorResponse(c, new ApiError('not_ready', 'the daemon is shutting down'), {
        Connection: 'close',
      });
    } else {
      await next();
    }
    // The line holds only the fields below, none a secret, so it skips the logger's redaction
    // (a third of a line's cost): that guards lines whose fields come from elsewhere.
    access ??= ctx.logger.child({}, { redact: [] });
    access.info(
      {
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
        listener: c.env.listener.kind,
      },
      'request',
    );
  };
}
