/**
 * The client of the local daemon as the CLI makes it: HTTP over the home's unix socket with
 * `node:http`, and the home's owner token unless a token is given. `@svc/client/node` does the
 * same with undici, whose loading alone was most of what `svc status` spent before it asked the
 * daemon anything; `node:http` is part of Node (and the bundle imports it without the facade
 * that loads Node's own undici: `lifecycle/node-bundle.ts` of the daemon).
 */
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { Readable } from 'node:stream';
import { type Fetch, Svc } from '@svc/client';
import { readOwnerToken } from '@svc/client/owner-token';
import type { HomePaths } from '@svc/protocol/home';

/** Statuses whose answers have no body (RFC 9110 §15.2, §15.3.5, §15.3.6, §15.4.5). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export function localClient(paths: HomePaths, token: string | undefined): Svc {
  return new Svc({
    // The daemon accepts Host `localhost` on its socket; the host part is otherwise unused.
    baseUrl: 'http://localhost',
    token: token ?? readOwnerToken(paths),
    fetch: socketFetch(paths.socket),
  });
}

/** The client's `fetch` (a method, headers, a text body, a signal) over the socket at `path`. */
export function socketFetch(socketPath: string): Fetch {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const { pathname, search } = new URL(url);
      const method = init.method ?? 'GET';
      const req = request(
        {
          socketPath,
          path: pathname + search,
          method,
          headers: init.headers as Record<string, string>,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const bodyless = NO_BODY.has(res.statusCode ?? 0) || method === 'HEAD';
          if (bodyless) res.resume();
          // As a Response: the client reads no more of one than `SocketAnswer` has.
          resolve(new SocketAnswer(res, bodyless) as unknown as Response);
        },
      );
      req.once('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}

/**
 * An answer as the client reads it (`ok`, `status`, `headers.get`, `body`, `text()`), without
 * WHATWG `Response` and `Headers`: the first use of either loads Node's own undici, which was
 * half of what `svc status` spent once `@svc/client/node`'s undici was gone.
 */
class SocketAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: AnswerHeaders;
  readonly body: ReadableStream<Uint8Array> | null;

  constructor(res: IncomingMessage, bodyless: boolean) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = res.statusMessage ?? '';
    this.headers = new AnswerHeaders(res.headers);
    this.body = bodyless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  }

  async text(): Promise<string> {
    if (this.body === null) return '';
    const chunks: Uint8Array[] = [];
    const reader = this.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks).toString('utf8');
      chunks.push(value);
    }
  }
}

/** The read side of `Headers` over node's parsed ones (names in lower case, repeats joined). */
class AnswerHeaders {
  readonly #headers: IncomingHttpHeaders;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    const value = this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name of Object.keys(this.#headers).sort()) callback(this.get(name)!, name);
  }
}
