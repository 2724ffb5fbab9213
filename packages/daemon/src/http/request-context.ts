import { randomUUID } from 'node:crypto';
import { REQUEST_ID_HEADER } from '@svc/protocol';
import type { MiddlewareHandler } from 'hono';
import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from './env.ts';
import { errorResponse } from './errors.ts';

// A caller's id is echoed only when it is short and inert in a log line or a header.
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * First middleware: the request id (caller's if sane, else new) on every response, one log line
 * per request (method, path, status, time; never headers or query), and 503 once draining.
 */
export function requestContext(ctx: DaemonContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header(REQUEST_ID_HEADER);
    const requestId = given !== undefined && CALLER_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('log', ctx.logger);
    if (ctx.draining()) {
      c.res = errorResponse(c, new ApiError('not_ready', 'the daemon is shutting down'), {
        Connection: 'close',
      });
    } else {
      await next();
    }
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
    ctx.logger.info(
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
