import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how much of a body, a connection closed on an unread body reads and drops. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 1024 * 1024;

/**
 * Closes the connection of `req` as RFC 9112 §9.6 asks of a server that leaves a body unread: its
 * side first (FIN after the answer), then reading and dropping what the client still sends, up
 * to `LINGER_BYTES` or `LINGER_MS`, and only then the socket. Closed at once, the kernel would
 * answer those bytes with a reset, and a client still writing its body would lose the answer
 * before reading it. Node calls `destroySoon` once the answer of a `Connection: close` is written.
 */
export function lingerOnClose(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (socket.destroyed) return;
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    let read = 0;
    req.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER_BYTES) socket.destroy();
    });
    socket.once('close', () => clearTimeout(timer));
  };
}
