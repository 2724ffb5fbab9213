import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, type RouteId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Logger, RequestLog } from '../lifecycle/logger.ts';
import type { Principal } from '../ports.ts';
import type { Db } from '../store/db.ts';
import type { IdempotencyStore } from '../store/idempotency.ts';
import { authenticate, type BearerTokens, matchRoute } from './auth.ts';
import { Call, type Reply } from './call.ts';
import { corsHeaders, corsOrigin, preflightResponse } from './cors.ts';
import { errorResponse, handleError } from './errors.ts';
import { hasOneHost, isAllowedHost } from './host-guard.ts';
import { idempotency } from './idempotency.ts';
import { readInput } from './input.ts';
import { lingerOnClose } from './linger.ts';
import type { Listener } from './listener.ts';
import { writeReply } from './reply.ts';
import { requestTarget } from './request-target.ts';
import type { Routes } from './route.ts';
import { viewerPrincipal } from './viewer-auth.ts';
import { viewerHeaders } from './viewer-pages.ts';
import { refuseForViewer, refuseViewerInput } from './viewer-rights.ts';
import { isViewerPath, serveViewer, type ViewerPageDeps } from './viewer-static.ts';

// A caller's id is echoed only when it is short and inert in a log line or a header.
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Node lowercases the names of `IncomingMessage.headers`.
const REQUEST_ID = REQUEST_ID_HEADER.toLowerCase();
/** Methods that change nothing (RFC 9110 §9.2.1): their successful answers are logged at debug. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** A call this slow is logged at info whatever it was: a long poll, a stuck handler. */
const SLOW_MS = 1_000;

/** What the request path uses of the daemon (the daemon's context is one). */
export interface RequestPathDeps extends ViewerPageDeps {
  store: {
    /** Whether every commit is durable yet: no answer goes out before (`Db.durable`). */
    db: Pick<Db, 'durable'>;
    idempotency: IdempotencyStore;
    /** A node's tree root: a node token's sight of a `tree` route (`Call.sight`). */
    nodes: { get(id: string): { root_id: string } | undefined };
  };
  tokens: BearerTokens & ViewerPageDeps['tokens'];
  logger: Logger;
  /** The log line of each answered request. */
  requestLog: RequestLog;
  /** True once shutdown began: new requests are answered 503. */
  draining(): boolean;
}

/** Serves one request on one listener (the node `request` event's listener). */
export type RequestPath = (req: IncomingMessage, res: ServerResponse, listener: Listener) => void;

/**
 * The daemon's whole request path, on node's request and response: request id (the caller's if
 * sane, else new) on every answer; 503 once draining; Host allow-list; CORS; route lookup in the
 * protocol's table; auth; input validation; Idempotency-Key; the route's handler; the answer,
 * once every commit made before it is durable (group commit); one log line.
 * A handler's throw is answered as its envelope (a 500 without internals when it is no
 * `ApiError`). A `GET` with a synchronous handler runs without a single promise.
 *
 * One log line per request (method, path, status, time; never headers or query): at `info` for
 * what an operator looks for (a change, a refusal or failure, a slow call, a client that left
 * before its answer), at `debug` for routine reads, as dockerd logs its API calls. A client or
 * the viewer polling `GET /v1/status` would otherwise bury the lines that matter and grow the log
 * without end, and the line was a tenth of such a read's cost (docs/api-v1.md, "Request lines").
 */
export function createRequestPath(ctx: RequestPathDeps, handlers: Routes): RequestPath {
  const idempotent = idempotency(ctx.store.idempotency);

  /** Route, auth, input, Idempotency-Key and handler; throws an `ApiError` to refuse. */
  function routed(c: Call, req: IncomingMessage, listener: Listener): Reply | Promise<Reply> {
    const { method, path } = c;
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
    c.route = route;
    c.principal = authenticate(
      match,
      c.headers.authorization,
      ctx.tokens,
      viewerSession(c, listener),
    );
    refuseForViewer(c);
    const handler = handlers.get(route.id as RouteId);
    if (handler === undefined) {
      // A route of the protocol's table this daemon has no handler for yet.
      return errorResponse(c, new ApiError('not_found', `${method} ${path} is not served here`));
    }
    const run = () => {
      try {
        refuseViewerInput(c, c.input as { body?: unknown });
        const reply = handler(c, c.input as never);
        return reply instanceof Promise ? reply.catch((error) => handleError(error, c)) : reply;
      } catch (error) {
        return handleError(error, c);
      }
    };
    const given = c.headers['idempotency-key'];
    const key = typeof given === 'string' ? given : undefined;
    const input = readInput(c, req, route, match.params);
    if (!(input instanceof Promise)) {
      c.input = input;
      return idempotent(c, key, run);
    }
    return input.then((read) => {
      c.input = read;
      return idempotent(c, key, run);
    });
  }

  /**
   * The viewer cookie's principal, checked only if the route needs one: on TCP, for a request
   * with a cookie and no `Authorization` (`viewerPrincipal`). Undefined otherwise, so a bearer
   * request makes no closure.
   */
  function viewerSession(c: Call, listener: Listener): (() => Principal | null) | undefined {
    if (listener.kind !== 'tcp' || c.headers.cookie === undefined) return undefined;
    if (c.headers.authorization !== undefined) return undefined;
    return () => {
      const found = viewerPrincipal(listener, c.headers, ctx.viewer, ctx.tokens.ownerPrincipal);
      c.viewerSession = found?.session ?? null;
      return found?.principal ?? null;
    };
  }

  return (req, res, listener) => {
    const started = performance.now();
    const headers = req.headers;
    const given = headers[REQUEST_ID];
    const requestId = typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
    const extra: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
    const target = requestTarget(req.url ?? '/');
    const c = new Call(
      { method: req.method ?? 'GET', path: target.path, query: target.query, headers },
      requestId,
      ctx.logger,
      res,
    );
    c.rootOf = (id) => ctx.store.nodes.get(id)?.root_id ?? null;

    const answer = (reply: Reply) => {
      if (bodyUnread(req)) {
        extra.Connection = 'close';
        lingerOnClose(req);
      }
      const gone = res.closed;
      try {
        writeReply(res, reply, extra)?.catch((error) => failed(error));
      } catch (error) {
        // A header node refuses to send: the answer cannot be written, only cut short.
        failed(error);
      }
      const ms = Math.round(performance.now() - started);
      const status = reply.status;
      ctx.requestLog(
        {
          request_id: requestId,
          method: c.method,
          path: c.path,
          status,
          ms,
          listener: listener.kind,
        },
        requestLogLevel(c.method, status, ms, gone),
      );
    };
    const failed = (error: unknown) => {
      c.log.error({ err: error, request_id: requestId }, 'answer not written');
      res.destroy();
    };

    // Once every commit made so far is durable (group commit, `store/group-commit.ts`): the
    // handler's own and any other a read may show. With nothing unflushed, at once.
    const whenDurable = (reply: Reply) => {
      const synced = ctx.store.db.durable();
      if (synced === null) return answer(reply);
      synced.then(
        () => answer(reply),
        (error: unknown) => answer(handleError(error, c)),
      );
    };

    // Every answer under /viewer/ carries the viewer's security headers, the early refusals below
    // (a Host not served, a preflight, a drain) included, not only what `serveViewer` writes.
    const viewer = listener.kind === 'tcp' && isViewerPath(c.path) ? listener : null;
    if (viewer !== null) viewerHeaders(extra);
    const refused = refusal(c, req, listener, target, extra, ctx.draining());
    if (refused !== null) return answer(refused);
    let reply: Reply | Promise<Reply>;
    try {
      reply = viewer !== null ? serveViewer(c, ctx, viewer) : routed(c, req, listener);
    } catch (error) {
      reply = handleError(error, c);
    }
    if (reply instanceof Promise) reply.catch((error) => handleError(error, c)).then(whenDurable);
    else whenDurable(reply);
  };
}

/**
 * The answers given before any route is looked at: 503 once draining, a target that is no path,
 * a second Host, a Host not served (DNS rebinding), a CORS preflight. `null` when none applies;
 * CORS headers for an allowed origin are added to `extra` then.
 */
function refusal(
  c: Call,
  req: IncomingMessage,
  listener: Listener,
  target: ReturnType<typeof requestTarget>,
  extra: Record<string, string>,
  draining: boolean,
): Reply | null {
  // An absolute-form target's authority replaces Host (RFC 9112 §3.2.2), so it is what the
  // DNS-rebinding guard must judge.
  const host = target.authority ?? c.headers.host;
  if (draining) {
    extra.Connection = 'close';
    return errorResponse(c, new ApiError('not_ready', 'the daemon is shutting down'));
  }
  if (target.bad !== undefined) return errorResponse(c, target.bad);
  if (!hasOneHost(req.rawHeaders)) {
    // RFC 9112 §3.2: two Hosts name no one target, and the guard below would judge one of them.
    const error = new ApiError('invalid_request', 'a request carries one Host header', {
      field: 'Host',
    });
    return errorResponse(c, error);
  }
  if (!isAllowedHost(listener, host)) {
    // DNS rebinding (see `isAllowedHost`): refused before anything else, CORS included.
    const shown = JSON.stringify(host?.toLowerCase() ?? '');
    const error = new ApiError('forbidden', `Host ${shown} is not served here`, {
      field: 'Host',
    });
    return errorResponse(c, error);
  }
  const origin = corsOrigin(listener, c.headers.origin);
  if (origin !== undefined) {
    if (c.method === 'OPTIONS' && c.headers['access-control-request-method'] !== undefined) {
      return preflightResponse(listener, origin);
    }
    corsHeaders(extra, listener, origin);
  }
  return null;
}

/**
 * Whether the request has a body its answer leaves unread: one refused before it is read (an
 * unknown route, a wrong method, no valid token, past the size limit), or a GET's, which is never
 * read. Node would read such a body to its end and drop it to keep the connection open, however
 * long it is and whoever sent it; the answer closes the connection instead, so what is read is
 * bounded by what is in flight, and no rest of it is taken for the next request.
 */
function bodyUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The level of a request's log line: `debug` for a routine read (a safe method answered below
 * 400 within `SLOW_MS`, its client still there), `info` for everything else.
 */
export function requestLogLevel(
  method: string,
  status: number,
  ms: number,
  clientGone: boolean,
): 'info' | 'debug' {
  const routine = SAFE_METHODS.has(method) && status < 400 && ms < SLOW_MS && !clientGone;
  return routine ? 'debug' : 'info';
}
