import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIError } from '../../src/index.ts';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: Recorded, res: ServerResponse, index: number) => unknown;

/**
 * A real HTTP server on 127.0.0.1 (or a unix socket) that records every request and answers
 * with the current `handler`, which a test swaps per case.
 */
export class ScriptedServer {
  readonly requests: Recorded[] = [];
  handler: Handler = (_req, res) => json(res, 200, {});
  readonly #server: Server;

  constructor() {
    this.#server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const recorded: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(recorded);
      await this.handler(recorded, res, this.requests.length - 1);
    });
  }

  /** Listens on 127.0.0.1:0, or on `socketPath`; resolves to the base URL. */
  async listen(socketPath?: string): Promise<string> {
    if (socketPath) this.#server.listen(socketPath);
    else this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    const { port } = this.#server.address() as AddressInfo;
    return socketPath ? 'http://localhost' : `http://127.0.0.1:${port}`;
  }

  /** Answers every request with `handler` and forgets earlier requests. */
  reset(handler: Handler): void {
    this.requests.length = 0;
    this.handler = handler;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close');
  }
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The error a call rejected with (fails the test if it resolved). */
export async function rejection(call: PromiseLike<unknown>): Promise<APIError> {
  try {
    await call;
  } catch (error) {
    return error as APIError;
  }
  throw new Error('expected the call to fail');
}

export function envelope(code: string, message: string, extra: Record<string, unknown> = {}) {
  return { error: { code, message, request_id: 'req_test', ...extra } };
}
