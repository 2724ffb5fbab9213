import type { Server } from 'node:http';
import { createFetchHandler } from '@svc/plugin-kit';
import { createTestIssuer } from '@svc/plugin-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOwnProcess, itServesAcme } from '../../test-support/acme-checks.ts';
import { readManifest } from '../../test-support/archive.ts';
import { plugin } from '../plugin.ts';
import { listen } from '../server.ts';

const TOKEN = 'node-http-example-token';
const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

async function start(handler: (request: Request) => Promise<Response>): Promise<string> {
  const { server, url } = await listen(handler);
  servers.push(server);
  return url;
}

describe('shared-token mode over node:http', () => {
  let url = '';
  const auth = { authorization: `Bearer ${TOKEN}` };
  beforeAll(async () => {
    url = await start(createFetchHandler(plugin, { token: TOKEN }));
  });

  itServesAcme(() => `${url}/plugins`, TOKEN);

  it('derives the mount from each request: the same server at the root', async () => {
    const manifest = await readManifest(await fetch(`${url}/`, { headers: auth }));
    expect(manifest.commands.map((command) => command.rest.path).sort()).toEqual([
      '/acme/tickets/create',
      '/acme/tickets/list',
    ]);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await fetch(`${url}/plugins`, { headers: auth });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"/);
    const again = await fetch(`${url}/plugins`, { headers: { ...auth, 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('lists the ticket it created', async () => {
    const created = await fetch(`${url}/plugins/acme/tickets/create`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Printer on fire' }),
    });
    const ticket = await created.json();
    expect(ticket).toEqual({ id: ticket.id, title: 'Printer on fire', opened_by: null });

    const listed = await fetch(`${url}/plugins/acme/tickets/list`, {
      method: 'POST',
      headers: auth,
    });
    expect((await listed.json()).data).toContainEqual(ticket);
  });

  it('names the failing field of an invalid body', async () => {
    const response = await fetch(`${url}/plugins/acme/tickets/create`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: '' }),
    });
    expect(response.status).toBe(422);
    const { error } = await response.json();
    expect(error.code).toBe('validation_failed');
    expect(error.field).toBe('title');
  });
});

describe('directory mode against a real JWKS endpoint', () => {
  let url = '';
  let issuer: Awaited<ReturnType<typeof createTestIssuer>>;
  let audience = '';
  // Both servers must listen before the issuer URL and the audience are known.
  let issuerFetch: (request: Request) => Promise<Response>;
  let pluginFetch: (request: Request) => Promise<Response>;

  beforeAll(async () => {
    const issuerUrl = await start((request) => issuerFetch(request));
    issuer = await createTestIssuer({ issuer: issuerUrl });
    issuerFetch = issuer.fetch;
    url = await start((request) => pluginFetch(request));
    audience = `${url}/plugins`;
    // No cooldown so the rotation test need not wait out the default 30 s between key fetches.
    pluginFetch = createFetchHandler(plugin, {
      auth: { issuer: issuerUrl, audience },
      jwks: { cooldownMs: 0 },
    });
  });

  const call = (token: string, headers: Record<string, string> = { 'svc-request-id': 'req-dir' }) =>
    fetch(`${url}/plugins/acme/tickets/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ title: 'VPN down' }),
    });

  it('keeps the archive public and declares directory auth', async () => {
    const response = await fetch(`${url}/plugins/acme`);
    expect(response.status).toBe(200);
    expect((await readManifest(response)).auth).toBe('directory');
  });

  it('runs a command for a directory token holding acme:tickets', async () => {
    const token = await issuer.mint({
      aud: audience,
      scope: 'acme:tickets other:scope',
      sub: 'user-7',
    });
    const response = await call(token);
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty('opened_by', 'user-7');
  });

  it('answers 403 scope_missing for a token without the group scope', async () => {
    const token = await issuer.mint({ aud: audience, scope: ['acme:billing'] });
    const response = await call(token);
    expect(response.status).toBe(403);
    const { error } = await response.json();
    expect(error).toHaveProperty('code', 'scope_missing');
    expect(error).toHaveProperty('field', 'acme:tickets');
    expect(error).toHaveProperty('received', 'acme:tickets');
  });

  it('answers 401 for another audience, even one differing by a trailing slash', async () => {
    const token = await issuer.mint({ aud: `${audience}/`, scope: 'acme:tickets' });
    expect((await call(token)).status).toBe(401);
  });

  it('answers 400 request_id_missing without Svc-Request-Id', async () => {
    const token = await issuer.mint({ aud: audience, scope: 'acme:tickets' });
    const response = await call(token, {});
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('request_id_missing');
  });

  it('fetches the key set again after the issuer rotates its key', async () => {
    await issuer.rotate();
    const token = await issuer.mint({ aud: audience, scope: 'acme:tickets' });
    expect((await call(token)).status).toBe(200);
  });
});

describeOwnProcess(`${import.meta.dirname}/..`, 'server.ts', TOKEN);
