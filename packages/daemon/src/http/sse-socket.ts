/**
 * An SSE answer's sink (`sse.ts`) over node's response. Past its head, the answer's chunks go
 * straight to the socket, each framed for chunked transfer coding (RFC 9112 §7.1) in one buffer:
 * `res.write` would cork the socket, write the chunk's size line, the bytes and its CRLF as three
 * pieces of a `writev` on the next tick, for every watcher of every page. The framing of a page
 * is made once, kept with its bytes, which every watcher of it is handed (`sse.ts` `frames`).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SseSink } from './sse.ts';

const framed = new WeakMap<Uint8Array, Buffer>();
const CRLF = Buffer.from('\r\n');

/** `bytes` as one chunk of the chunked transfer coding, made once per bytes. */
function chunk(bytes: Uint8Array): Buffer {
  let out = framed.get(bytes);
  if (out === undefined) {
    out = Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`), bytes, CRLF]);
    framed.set(bytes, out);
  }
  return out;
}

/**
 * The sink of `res`, whose head is sent (`flushHeaders`). Its own socket when the answer is
 * chunked and holds the connection (no answer before it still queued on a pipelined one);
 * otherwise `res.write`, which frames and queues as node does. The end is `res.end()` either
 * way: node writes the last chunk, and the connection goes on to its next request.
 */
export function responseSink(res: ServerResponse): SseSink {
  const socket = res.socket as (Socket & { _httpMessage?: unknown }) | null;
  const own = socket !== null && res.chunkedEncoding && socket._httpMessage === res;
  if (!own) {
    return {
      write: (bytes) => res.write(bytes),
      onDrain: (resume) => res.once('drain', resume),
      end: () => res.end(),
      destroy: () => res.destroy(),
    };
  }
  return {
    write(bytes) {
      if (socket.destroyed) return false; // its `close` cancels the stream
      return socket.write(chunk(bytes));
    },
    onDrain: (resume) => socket.once('drain', resume),
    end: () => res.end(),
    destroy: () => res.destroy(),
  };
}
