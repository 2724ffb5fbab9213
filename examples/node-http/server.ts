import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createFetchHandler } from '@svc/plugin-kit';
import { plugin } from './plugin.ts';

type FetchHandler = (request: Request) => Promise<Response>;

// The whole adapter between node:http and a Fetch handler.
export function listen(handler: FetchHandler, port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(toRequest(req, res))
      .then((response) => send(response, req, res))
      .catch(() => res.destroy());
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  const aborted = new AbortController(); // the client went away before the answer ended
  res.on('close', () => res.writableFinished || aborted.abort());
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`), {
    method: req.method ?? 'GET',
    headers,
    signal: aborted.signal,
    ...(hasBody && { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' }),
  });
}

async function send(response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.setHeaders(response.headers);
  // Answered before the whole upload arrived (e.g. 413): the connection cannot be reused.
  if (!req.complete) res.setHeader('connection', 'close');
  res.writeHead(response.status);
  if (response.body) await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res);
  else res.end();
}

// `node server.ts`: shared-token mode with ACME_TOKEN, directory mode with ACME_ISSUER and
// ACME_AUDIENCE (the public URL the directory registered, e.g. https://acme.example/plugins).
if (import.meta.main) {
  const { ACME_TOKEN: token, ACME_ISSUER: issuer, ACME_AUDIENCE: audience, PORT } = process.env;
  const handler = createFetchHandler(
    plugin,
    issuer && audience ? { auth: { issuer, audience } } : { token },
  );
  const { url } = await listen(handler, Number(PORT ?? 8787));
  console.log(`acme plugin listening on ${url} (any mount works, e.g. ${url}/plugins)`);
}
