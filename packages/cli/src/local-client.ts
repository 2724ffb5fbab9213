/**
 * The client of the local daemon as the CLI makes it: HTTP over the home's unix socket with
 * `node:http`, and the home's owner token unless a token is given. `@svc/client/node` does the
 * same with undici, whose loading alone was most of what `svc status` spent before it asked the
 * daemon anything; `node:http` is part of Node and starts in a few milliseconds.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { type Fetch, Svc, SvcError } from '@svc/client';
import type { HomePaths } from '@svc/protocol/home';

/** Statuses whose answers have no body (RFC 9110 §15.2, §15.3.5, §15.3.6, §15.4.5). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export function localClient(paths: HomePaths, token: string | undefined): Svc {
  return new Svc({
    // The daemon accepts Host `localhost` on its socket; the host part is otherwise unused.
    baseUrl: 'http://localhost',
    token: token ?? ownerToken(paths),
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
          const headers = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
            headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          }
          const status = res.statusCode ?? 0;
          const bodyless = NO_BODY.has(status) || method === 'HEAD';
          if (bodyless) res.resume();
          const body = bodyless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers }));
        },
      );
      req.once('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}

/** As `@svc/client/node` reads it, with the same error when the home has none. */
function ownerToken(paths: HomePaths): string {
  try {
    return readFileSync(paths.ownerToken, 'utf8').trim();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw cause;
    throw new SvcError(
      'daemon_not_found',
      `No svc daemon home at ${paths.home} (${paths.ownerToken} is missing). ` +
        'Start one with `svc daemon start`.',
      { cause },
    );
  }
}
