import type { ServerResponse } from 'node:http';
import type { Reply } from './call.ts';
import { SseBody } from './sse.ts';
import { responseSink } from './sse-socket.ts';

/**
 * Writes `reply` to node's response with `extra` headers (request id, CORS). Text goes out in
 * one write with its `Content-Length`; a stream is written chunk by chunk, waiting for `drain`
 * when the socket's buffer is full, and cancelled once the client is gone (an event stream,
 * `SseBody`, writes to the socket itself). Settles when done.
 * `reply.headers` is extended in place: a reply is written once, and a copy per request costs.
 */
export function writeReply(
  res: ServerResponse,
  reply: Reply,
  extra: Record<string, string>,
): Promise<void> | undefined {
  const { status, body } = reply;
  const headers = Object.assign(reply.headers, extra);
  if (body === null) {
    res.writeHead(status, headers);
    res.end();
    return undefined;
  }
  if (typeof body === 'string') {
    // Given as a string, the body goes out in one write(2) with the head (node joins the two);
    // a Buffer would be a second chunk of a writev(2), after a copy.
    headers['Content-Length'] = String(Buffer.byteLength(body));
    res.writeHead(status, headers);
    res.end(body);
    return undefined;
  }
  if (body instanceof Uint8Array) {
    headers['Content-Length'] = String(body.byteLength);
    res.writeHead(status, headers);
    res.end(body);
    return undefined;
  }
  if (body instanceof SseBody) {
    res.writeHead(status, headers);
    if (res.req.method !== 'HEAD') {
      // An event stream's first event may be minutes away; the client learns the status now.
      res.flushHeaders();
      res.once('close', () => body.cancel());
      body.start(responseSink(res));
      return undefined;
    }
    body.cancel(); // as for a stream below: a HEAD gets the head only
    res.end();
    return undefined;
  }
  res.writeHead(status, headers);
  if (res.req.method === 'HEAD') {
    // The head of a stream is all a HEAD gets: node drops the body, but the stream would hold
    // the response open until the client left, and a request pipelined behind it unanswered.
    body.cancel().catch(() => {});
    res.end();
    return undefined;
  }
  // An event stream's first event may be minutes away; the client learns the status now.
  res.flushHeaders();
  return pipe(body, res);
}

async function pipe(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  let gone = false;
  const onClose = () => {
    gone = true;
    reader.cancel().catch(() => {});
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      if (!res.write(value)) await drained(res);
    }
  } catch {
    // The stream failed mid-answer: the status is sent, so all that is left is to cut it short.
    res.destroy();
    return;
  } finally {
    res.off('close', onClose);
  }
  res.end();
}

/** Resolves on `drain`, or on `close` (a client gone never drains). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
