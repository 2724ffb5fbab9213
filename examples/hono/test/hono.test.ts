import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOwnProcess, itServesAcme } from '../../test-support/acme-checks.ts';
import { createApp } from '../app.ts';

const TOKEN = 'hono-example-token';

describe('acme plugin mounted in a Hono app under /plugins/*', () => {
  let server: ServerType;
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((listening) => {
      server = serve({ fetch: createApp(TOKEN).fetch, hostname: '127.0.0.1', port: 0 }, () =>
        listening(),
      );
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((closed) => server.close(closed)));

  itServesAcme(() => `${url}/plugins`, TOKEN);

  it('leaves the rest of the app to Hono', async () => {
    expect(await (await fetch(`${url}/`)).text()).toMatch(/acme demo/);
  });

  it('answers 404 not_found for a path of no command under the mount', async () => {
    const response = await fetch(`${url}/plugins/acme/tickets/delete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
  });
});

describeOwnProcess(`${import.meta.dirname}/..`, 'app.ts', TOKEN);
