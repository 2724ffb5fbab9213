import { serve } from '@hono/node-server';
import { createFetchHandler } from '@svc/plugin-kit';
import { Hono } from 'hono';
import { plugin } from './plugin.ts';

export function createApp(token: string): Hono {
  const acme = createFetchHandler(plugin, { token });
  const app = new Hono();
  app.get('/', (c) => c.text('acme demo: the plugin lives under /plugins'));
  // The raw Request goes to the kit untouched: it reads the body and routes by path suffix.
  app.all('/plugins/*', (c) => acme(c.req.raw));
  return app;
}

if (import.meta.main) {
  const token = process.env.ACME_TOKEN;
  if (!token) throw new Error('set ACME_TOKEN');
  const port = Number(process.env.PORT ?? 8787);
  serve({ fetch: createApp(token).fetch, hostname: '127.0.0.1', port }, (info) =>
    console.log(`acme plugin listening on http://127.0.0.1:${info.port}/plugins`),
  );
}
