import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createFetchHandler } from '@svc/plugin-kit';
import express, { type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import { plugin } from './plugin.ts';

// Express → Fetch: the full original URL (so the kit sees the mount), every raw header,
// the body as the untouched stream (no body parser may run before this route).
export function toFetchRequest(req: ExpressRequest, res: ExpressResponse): Request {
  const aborted = new AbortController();
  res.on('close', () => res.writableFinished || aborted.abort());
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`${req.protocol}://${req.get('host')}${req.originalUrl}`, {
    method: req.method,
    headers,
    signal: aborted.signal,
    ...(hasBody && { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' }),
  });
}

// Fetch → Express: status and headers as sent, then the body streamed chunk by chunk
// (Server-Sent Events reach the client as the handler yields them).
export async function sendFetchResponse(res: ExpressResponse, response: Response): Promise<void> {
  res.status(response.status).setHeaders(response.headers);
  // Answered before the whole upload arrived (e.g. 413): the connection cannot be reused.
  if (!res.req.complete) res.setHeader('connection', 'close');
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  // A client leaving mid-stream ends the pipeline early; that is normal for a stream, not an error.
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res).catch(() => {});
}

export function createApp(token: string): express.Express {
  const acme = createFetchHandler(plugin, { token });
  const app = express();
  app.get('/', (_req, res) => {
    res.send('acme demo: the plugin lives under /plugins');
  });
  app.use('/plugins', (req, res, next) => {
    acme(toFetchRequest(req, res))
      .then((response) => sendFetchResponse(res, response))
      .catch(next);
  });
  return app;
}

if (import.meta.main) {
  const token = process.env.ACME_TOKEN;
  if (!token) throw new Error('set ACME_TOKEN');
  const server = createApp(token).listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    console.log(`acme plugin listening on http://127.0.0.1:${port}/plugins`);
  });
}
