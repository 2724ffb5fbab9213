import { connect, type Socket } from 'node:net';
import { isId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import type { Principal, ViewerSessions } from '../ports.ts';
import type { Call, Reply } from './call.ts';
import type { Listener } from './listener.ts';
import { type SseRegistry, sseHeaders } from './sse.ts';
import { viewerPrincipal } from './viewer-auth.ts';

export const LIVE_PREFIX = '/viewer/live/nodes/';
/** A line of the broker's socket longer than this is no loop event of ours: the relay ends. */
const LINE_MAX = 1 << 20;
/**
 * A node turns running as its broker is launched, a moment before the broker's socket is up:
 * the page asks as it sees `running`, so the relay waits that moment out (bounded) rather than
 * answer that there is nothing to follow.
 */
const SOCKET_WAIT_MS = 3_000;
const SOCKET_POLL_MS = 50;

/**
 * `GET /viewer/live/nodes/{id}`: what the node's model is writing, as it writes it. The broker
 * streams its loop to a host-local unix socket (`nodes.attach`, broker/viewer-socket.ts), which a
 * browser cannot open; this relays its live loop events (`turn.started`, `text.delta`,
 * `turn.recorded`, `tool.started`, `tool.recorded`, `loop.ended`) as SSE, each `event:` its type
 * and `data:` the line, to the viewer page of a live session only (its cookie and page key, as a
 * `/v1` route asks them). The transcript the socket sends first is left out: the page has it from
 * the node's events. 204 (no stream) while the node has no broker running it. The stream ends
 * with the broker's socket, the session (checked at each chunk and keepalive), the client, or
 * the daemon's shutdown. Backpressure is the socket's: a page that reads slowly pauses it, and
 * the broker drops a viewer that falls too far behind.
 */
/** What the live view reads: the session, the node and its broker's socket, the streams. */
export interface ViewerLiveDeps {
  viewer: ViewerSessions;
  tokens: { ownerPrincipal(): Readonly<Principal> | null };
  nodes: {
    /** The node `principal` may read; a 404 otherwise. */
    readableRow(id: string, principal: Principal): NodeRow;
    viewerSocket(nodeId: string): Promise<string | null>;
  };
  sse: Pick<SseRegistry, 'add'>;
  sseKeepaliveMs: number;
}

export async function serveLive(c: Call, ctx: ViewerLiveDeps, listener: Listener): Promise<Reply> {
  const id = c.path.slice(LIVE_PREFIX.length);
  const found = viewerPrincipal(listener, c.headers, ctx.viewer, ctx.tokens.ownerPrincipal);
  if (found === null) {
    throw new ApiError(
      'unauthorized',
      'the live view is the viewer page’s: log in with `svc sys connect --open`',
    );
  }
  if (!isId('node', id)) {
    throw new ApiError('not_found', `no node ${JSON.stringify(id)}`, { field: 'id' });
  }
  let node = ctx.nodes.readableRow(id, found.principal);
  // Answered once the broker's socket accepts a connection (the supervisor probes it).
  let path = await ctx.nodes.viewerSocket(node.id);
  for (let waited = 0; path === null && node.state === 'running' && waited < SOCKET_WAIT_MS; ) {
    await new Promise((resolve) => setTimeout(resolve, SOCKET_POLL_MS));
    waited += SOCKET_POLL_MS;
    if (c.signal.aborted) throw new ApiError('invalid_state', 'the client went away');
    node = ctx.nodes.readableRow(id, found.principal);
    path = await ctx.nodes.viewerSocket(node.id);
  }
  // Nothing to follow: 204, the end, as a node stream of a settled node answers. The page asks
  // as it sees `running`, and a node that fails at once is gone by then; that is no error.
  if (path === null) return c.body(null, 204, { 'Cache-Control': 'no-store' });
  const session = found.session;
  const alive = () => ctx.viewer.isLive(session);
  const encoder = new TextEncoder();
  let socket: Socket | undefined;
  let done = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let pending = '';
      const keepalive = setInterval(() => {
        if (!alive()) done();
        else controller.enqueue(encoder.encode(': keepalive\n\n'));
      }, ctx.sseKeepaliveMs);
      const unregister = ctx.sse.add(() => done());
      const onAbort = () => done();
      done = () => {
        if (closed) return;
        closed = true;
        clearInterval(keepalive);
        unregister();
        c.signal.removeEventListener('abort', onAbort);
        socket?.destroy();
        try {
          controller.enqueue(encoder.encode('event: end\ndata: {}\n\n'));
          controller.close();
        } catch {
          // The client cancelled the stream first: there is no one left to tell.
        }
      };
      c.signal.addEventListener('abort', onAbort);
      controller.enqueue(encoder.encode(': open\n\n'));
      const relay = (line: string) => {
        let type: unknown;
        try {
          type = (JSON.parse(line) as { type?: unknown }).type;
        } catch {
          return; // not a line of the broker's: nothing to relay
        }
        if (typeof type !== 'string' || type === 'turn' || !/^[a-z.]+$/.test(type)) return;
        controller.enqueue(encoder.encode(`event: ${type}\ndata: ${line}\n\n`));
      };
      socket = connect(path);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        // As a `/v1` stream asks before every page: a logout ends it before its next line.
        if (!alive()) return done();
        pending += chunk;
        for (let at = pending.indexOf('\n'); at !== -1; at = pending.indexOf('\n')) {
          relay(pending.slice(0, at));
          pending = pending.slice(at + 1);
        }
        if (pending.length > LINE_MAX) done();
        else if ((controller.desiredSize ?? 1) <= 0) socket?.pause();
      });
      socket.on('close', () => done());
      socket.on('error', () => done());
    },
    pull() {
      socket?.resume();
    },
    cancel() {
      done();
    },
  });
  return c.body(stream, 200, { ...sseHeaders(ctx.sseKeepaliveMs), 'Cache-Control': 'no-store' });
}
