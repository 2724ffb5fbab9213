import { createFetchHandler } from '@svc/plugin-kit';
import { plugin } from './plugin.ts';

const token = Deno.env.get('ACME_TOKEN');
if (!token) throw new Error('set ACME_TOKEN');

const acme = createFetchHandler(plugin, { token });

Deno.serve(
  {
    hostname: '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? 0),
    onListen: ({ port }) => console.log(`acme plugin listening on http://127.0.0.1:${port}`),
  },
  acme,
);
