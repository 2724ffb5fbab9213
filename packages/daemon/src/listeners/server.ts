import { createServer, type Server } from 'node:http';
import type { App } from '../http/app.ts';
import type { Listener } from '../http/listener.ts';

/** An HTTP server for one listener, counting requests in flight so a shutdown can drain them. */
export interface ListenerServer {
  server: Server;
  /** Stops accepting, waits for requests in flight (at most `graceMs`), then closes connections. */
  close(graceMs: number): Promise<void>;
}

export function listenerServer(app: App, listener: Listener): ListenerServer {
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
