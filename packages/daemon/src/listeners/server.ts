import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { BODY_FAULT } from '../http/input.ts';
import type { Listener } from '../http/listener.ts';
import type { RequestPath } from '../http/request-path.ts';

/** An HTTP server for one listener, counting requests in flight so a shutdown can drain them. */
export interface ListenerServer {
  server: Server;
  /** Stops accepting, waits for requests in flight (at most `graceMs`), then closes connections. */
  close(graceMs: number): Promise<void>;
}

/** What a listener serves: the daemon's request path (`createApp`'s `App` is one). */
export interface Served {
  readonly serve: RequestPath;
}

export function listenerServer(app: Served, listener: Listener): ListenerServer {
  // A socket client may send no Host (HTTP/1.1 over AF_UNIX); the request path decides.
  let inFlight = 0;
  let idle: (() => void) | null = null;
  // One shared listener, not a closure per request: 'close' comes once per response.
  const answered = () => {
    inFlight--;
    if (inFlight === 0) idle?.();
  };
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    inFlight++;
    res.on('close', answered);
    app.serve(req, res, listener);
  });
  server.on('clientError', refuseMalformed);
  return {
    server,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * A request node's parser refuses before any route sees it (a header too large, a line without a
 * colon, two Content-Lengths): by default node answers a bare 400 or 431 and closes. Here it is
 * the same status with the error envelope and a `Svc-Request-Id`, as every answer of the daemon.
 */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A peer that reset or timed out is gone (node's own default handler makes the same check).
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight !== undefined && inFlight !== null) {
    refuseBody(error, socket, inFlight);
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const requestId = randomUUID();
  const body = JSON.stringify(
    errorEnvelope(
      'invalid_request',
      tooLarge ? 'the request headers are too large' : 'the request is not valid HTTP/1.1',
      requestId,
    ),
  );
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Svc-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** The requests whose body fault was handed to their reader: the parser repeats its error. */
const faulted = new WeakSet<object>();

/**
 * A parse error while a request is being answered. In its body, still being read: its reader is
 * told (`BODY_FAULT`), so the request path answers 400 and closes the connection. Otherwise (the
 * answer is under way, was decided without the body, or the error is in a request pipelined
 * behind it) an answer is not ours to write: the connection is cut, as node's own handler does.
 */
function refuseBody(error: NodeJS.ErrnoException, socket: Duplex, res: ServerResponse): void {
  const req = res.req;
  if (faulted.has(req)) return;
  if (res.headersSent || req.complete || req.listenerCount(BODY_FAULT) === 0) {
    socket.destroy();
    return;
  }
  faulted.add(req);
  const message =
    error.code === 'HPE_INVALID_EOF_STATE'
      ? 'the request body ended early'
      : 'the request body is not valid HTTP/1.1 framing (a chunk size or chunk end is malformed)';
  req.emit(BODY_FAULT, new ApiError('invalid_request', message));
}
