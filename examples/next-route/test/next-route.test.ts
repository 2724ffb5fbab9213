import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itServesAcme } from '../../test-support/acme-checks.ts';
import { nextRouter } from './next-router.ts';

const TOKEN = 'next-route-example-token';

describe('acme plugin as a Next.js App Router route', () => {
  let server: ServerType;
  let url = '';
  beforeAll(async () => {
    process.env.ACME_TOKEN = TOKEN; // read by the route module when it loads
    const route = await import('../app/api/plugins/[[...path]]/route.ts');
    const app = nextRouter({ 'api/plugins/[[...path]]': route });
    await new Promise<void>((listening) => {
      server = serve({ fetch: app, hostname: '127.0.0.1', port: 0 }, () => listening());
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((closed) => server.close(closed)));

  itServesAcme(() => `${url}/api/plugins`, TOKEN);

  it('answers HEAD through the GET export with the archive headers and no body', async () => {
    const response = await fetch(`${url}/api/plugins/acme`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(await response.text()).toBe('');
  });
});
