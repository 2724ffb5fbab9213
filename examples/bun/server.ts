import { createFetchHandler } from '@svc/plugin-kit';
import { plugin } from './plugin.ts';

const token = process.env.ACME_TOKEN;
if (!token) throw new Error('set ACME_TOKEN');

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  fetch: createFetchHandler(plugin, { token }),
});
console.log(`acme plugin listening on http://127.0.0.1:${server.port}`);
