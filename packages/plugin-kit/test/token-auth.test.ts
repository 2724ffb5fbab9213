import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../src/index.ts';
import { acmeDefinition, errorOf, get, memoryLogger, ORIGIN, post } from './helpers.ts';

const TOKEN = 'tok_3f9a2c7e-secret';
const logger = memoryLogger();
const handler = createFetchHandler(acmeDefinition(), { token: TOKEN, logger });
const versioned = createFetchHandler([{ ...acmeDefinition(), version: 1 }], { token: TOKEN });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function expectUnauthorized(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
  const error = await errorOf(response);
  expect(error.code).toBe('unauthorized');
  expect(JSON.stringify(error)).not.toContain(TOKEN);
}

describe('shared-token mode', () => {
  it('serves the archive with the right bearer', async () => {
    const response = await handler(get('/plugins', bearer(TOKEN)));
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-transform');
  });

  it('runs a command with the right bearer', async () => {
    expect(
      (await handler(post('/acme/tickets/create', { title: 't' }, bearer(TOKEN)))).status,
    ).toBe(200);
  });

  it('leaves the cross-site refusal to the token: only a request carrying it runs', async () => {
    // A browser sends Authorization cross-site only after a preflight, so a simple cross-site
    // post is refused by the missing token (401), and one carrying the token was let through by
    // a preflight its origin granted, as for application/json.
    const crossSite = (headers: Record<string, string>) =>
      new Request(`${ORIGIN}/acme/tickets/create`, {
        method: 'POST',
        body: '{"title":"t"}',
        headers: { 'Content-Type': 'text/plain', 'Sec-Fetch-Site': 'cross-site', ...headers },
      });
    await expectUnauthorized(await handler(crossSite({})));
    expect((await handler(crossSite(bearer(TOKEN)))).status).toBe(200);
  });

  it('accepts the scheme in any case (RFC 9110 §11.1)', async () => {
    const response = await handler(get('/plugins', { Authorization: `bearer ${TOKEN}` }));
    expect(response.status).toBe(200);
  });

  it('answers 401 for a missing bearer on the archive and on commands', async () => {
    await expectUnauthorized(await handler(get('/plugins')));
    await expectUnauthorized(await handler(post('/acme/tickets/create', { title: 't' })));
  });

  it('answers 401 for a wrong, longer, shorter or empty token', async () => {
    // The comparison walks the presented token and reads the secret modulo its length, so a
    // repeat of the secret matches it character for character: only the length refuses it.
    const flipped = `${TOKEN.slice(0, -1)}${String.fromCharCode(TOKEN.charCodeAt(TOKEN.length - 1) ^ 1)}`;
    for (const token of [
      'wrong',
      `${TOKEN}x`,
      TOKEN.slice(0, -1),
      TOKEN.toUpperCase(),
      TOKEN.repeat(2),
      flipped,
    ]) {
      await expectUnauthorized(await handler(get('/plugins', bearer(token))));
      await expectUnauthorized(await handler(post('/acme/tickets/create', {}, bearer(token))));
    }
    await expectUnauthorized(await handler(get('/plugins', { Authorization: 'Bearer ' })));
  });

  it('answers 401 for another scheme carrying the token', async () => {
    await expectUnauthorized(await handler(get('/plugins', { Authorization: `Basic ${TOKEN}` })));
    await expectUnauthorized(await handler(get('/plugins', { Authorization: TOKEN })));
  });

  it('authenticates before routing: no 404 or 405 reveals which paths exist', async () => {
    await expectUnauthorized(await handler(post('/acme/tickets/nope', {})));
    await expectUnauthorized(
      await handler(new Request(`${ORIGIN}/acme/tickets/create`, { method: 'DELETE' })),
    );
    await expectUnauthorized(
      await handler(new Request(`${ORIGIN}/acme/tickets/create`, { method: 'OPTIONS' })),
    );
    expect((await handler(post('/acme/tickets/nope', {}, bearer(TOKEN)))).status).toBe(404);
  });

  it('authenticates before reading the body', async () => {
    await expectUnauthorized(await handler(post('/acme/tickets/create', '{not json')));
  });

  it('keeps /versions public', async () => {
    const response = await versioned(get('/versions'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ latest: 1, supported: [1] });
    await expectUnauthorized(await versioned(get('/v1/')));
  });

  it('keeps /versions public for every method: OPTIONS and a wrong method answer without a token', async () => {
    const options = await versioned(
      new Request(`${ORIGIN}/plugins/versions`, { method: 'OPTIONS' }),
    );
    expect(options.status).toBe(204);
    expect(options.headers.get('Allow')).toBe('GET, HEAD');
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await versioned(new Request(`${ORIGIN}/plugins/versions`, { method }));
      expect(`${method} ${response.status}`).toBe(`${method} 405`);
      expect(response.headers.get('Allow')).toBe('GET, HEAD');
    }
    // The archive's own paths stay private, whatever the method.
    await expectUnauthorized(
      await versioned(new Request(`${ORIGIN}/plugins/v1/`, { method: 'OPTIONS' })),
    );
    await expectUnauthorized(
      await versioned(new Request(`${ORIGIN}/plugins/v1/`, { method: 'PUT' })),
    );
    await expectUnauthorized(await versioned(post('/plugins/v1/', {})));
  });

  it('refuses at creation a token beyond visible ASCII, which clients send in other bytes', () => {
    // A UTF-8 terminal sends `é` as two bytes, and the installer takes visible ASCII only.
    expect(() => createFetchHandler(acmeDefinition(), { token: 'clé-secret', logger })).toThrow(
      /options\.token must be a non-empty string of visible ASCII/,
    );
  });

  it('never logs the token', () => {
    expect(logger.warnings.join('\n')).not.toContain(TOKEN);
  });
});
