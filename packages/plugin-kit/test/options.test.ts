import { describe, expect, it } from 'vitest';
import { createFetchHandler, type FetchHandlerOptions } from '../src/index.ts';
import { acmeDefinition, acmeGroup, errorOf, get, memoryLogger, pathsOf, post } from './helpers.ts';

const auth = { issuer: 'https://dir.example', audience: 'https://plugins.example/acme' };

function create(options: unknown) {
  return () => createFetchHandler(acmeDefinition(), options as FetchHandlerOptions);
}

describe('createFetchHandler options', () => {
  it('returns a named function', () => {
    const handler = createFetchHandler(acmeDefinition(), { token: 't' });
    expect(typeof handler).toBe('function');
    expect(handler.name).toBe('svcPluginHandler');
  });

  it('throws a TypeError when both token and auth are given', () => {
    expect(create({ token: 't', auth })).toThrow(TypeError);
    expect(create({ token: 't', auth })).toThrow(/token and options\.auth are exclusive/);
  });

  it('warns exactly once, at creation, when neither token nor auth is given', async () => {
    const logger = memoryLogger();
    const handler = createFetchHandler(acmeDefinition(), { logger });
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/without authentication/);
    await handler(get('/'));
    await handler(get('/acme'));
    expect(logger.warnings).toHaveLength(1);
  });

  it('does not warn when authenticated', () => {
    const logger = memoryLogger();
    createFetchHandler(acmeDefinition(), { token: 't', logger });
    createFetchHandler(acmeDefinition(), { auth, logger });
    expect(logger.warnings).toHaveLength(0);
  });

  it('rejects an empty token', () => {
    expect(create({ token: '' })).toThrow(/options\.token/);
  });

  it('rejects a token that is not visible ASCII: white space (a file read with its newline), controls, other letters', () => {
    for (const token of [
      'secret\n',
      ' secret',
      'sec ret',
      'sec\tret',
      'sec\u00a0ret',
      'sec\u0000ret',
      't€ken',
      'clé',
    ]) {
      expect(create({ token })).toThrow(TypeError);
      expect(create({ token })).toThrow(/options\.token .*trim a token read from a file/);
    }
  });

  it('rejects options, auth and jwks that are not objects, naming each', () => {
    expect(create(null)).toThrow(/^options must be an object$/);
    expect(create('t')).toThrow(/^options must be an object$/);
    for (const bad of [null, 'https://dir.example', []]) {
      expect(create({ auth: bad })).toThrow(/options\.auth must be an object/);
    }
    expect(create({ auth, jwks: 'x' })).toThrow(/options\.jwks must be an object/);
    expect(create({ auth, jwks: { fetch: 'nope' } })).toThrow(/options\.jwks\.fetch/);
  });

  it('rejects an unknown option, naming it, so a misspelt token cannot turn auth off', () => {
    const warned: string[] = [];
    const logger = { warn: (message: string) => warned.push(message) };
    expect(create({ tokn: 'secret', logger })).toThrow(
      /^options\.tokn is not an option; known: token, auth, /,
    );
    expect(warned).toEqual([]);
    expect(create({ auth: { ...auth, audiance: 'x' } })).toThrow(/options\.auth\.audiance/);
    expect(create({ auth, jwks: { cooldown: 5 } })).toThrow(/options\.jwks\.cooldown is not/);
  });

  it('rejects a logger without a warn function, naming options.logger', () => {
    for (const logger of [{}, null, 'console', { warn: 'x' }]) {
      expect(create({ token: 't', logger })).toThrow(/options\.logger/);
      expect(create({ logger })).toThrow(/options\.logger/);
    }
  });

  it('still answers, with its request id, when the logger itself throws', async () => {
    const logger = {
      warn() {
        throw new Error('log sink down');
      },
    };
    const def = acmeGroup({
      boom: {
        description: 'd',
        handler: () => {
          throw new Error('boom');
        },
      },
    });
    const handler = createFetchHandler(def, { token: 't', logger });
    const response = await handler(
      post('/acme/g/boom', {}, { Authorization: 'Bearer t', 'Svc-Request-Id': 'req-1' }),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('Svc-Request-Id')).toBe('req-1');
    expect((await errorOf(response)).code).toBe('internal_error');
    expect(() => createFetchHandler(def, { logger })).not.toThrow();
  });

  it('warns only for a handler it made: a bad option or schema throws with nothing logged', () => {
    const logger = memoryLogger();
    expect(create({ logger, baseUrl: '/relative' })).toThrow(/baseUrl/);
    expect(() =>
      createFetchHandler(acmeDefinition({ version: 2 }), {
        logger,
        baseUrl: 'https://p.example/v1',
      }),
    ).toThrow(/baseUrl/);
    const badSchema = acmeGroup({
      c: { description: 'd', input: { type: 'objcet' }, handler: () => ({}) },
    });
    expect(() => createFetchHandler(badSchema, { logger })).toThrow(TypeError);
    expect(logger.warnings).toEqual([]);
  });

  it('rejects an auth issuer that is not a URL, or an empty audience', () => {
    expect(create({ auth: { issuer: 'dir.example', audience: 'x' } })).toThrow(
      /options\.auth\.issuer/,
    );
    expect(create({ auth: { issuer: auth.issuer, audience: '' } })).toThrow(
      /options\.auth\.audience/,
    );
  });

  it('rejects a baseUrl that is not absolute, naming baseUrl', () => {
    for (const baseUrl of ['/plugins', 'plugins.example/x', 'ftp://plugins.example/x', '']) {
      expect(create({ token: 't', baseUrl })).toThrow(TypeError);
      expect(create({ token: 't', baseUrl })).toThrow(/baseUrl/);
    }
  });

  it('rejects a baseUrl with a /v<N> segment when versions are served, naming baseUrl', () => {
    const versioned = [
      acmeDefinition({ version: 2 }),
      [acmeDefinition({ version: 1 }), acmeDefinition({ version: 2 })],
    ];
    for (const plugin of versioned) {
      for (const baseUrl of [
        'https://p.example/v2',
        'https://p.example/v1/plugins',
        'https://p.example/x/v10/',
      ]) {
        expect(() => createFetchHandler(plugin, { token: 't', baseUrl })).toThrow(
          /baseUrl must not contain a \/v<N> segment/,
        );
      }
    }
  });

  it('accepts a baseUrl with a /v<N> segment for an unversioned plugin, as its mount', async () => {
    for (const baseUrl of [
      'https://pub.example/api/v1/plugins',
      'https://pub.example/api/v1/plugins/',
      'https://pub.example/v2',
    ]) {
      const handler = createFetchHandler(acmeDefinition(), { token: 't', baseUrl });
      const mount = new URL(baseUrl).pathname.replace(/\/$/, '');
      const response = await handler(get('/internal/', { Authorization: 'Bearer t' }));
      expect(await pathsOf(response)).toContain(`${mount}/acme/tickets/create`);
    }
  });

  it('reads /v0 and /v01 in a versioned baseUrl as plain segments, as the router does', async () => {
    for (const baseUrl of ['https://p.example/v0', 'https://p.example/v01/x']) {
      const handler = createFetchHandler(acmeDefinition({ version: 2 }), { token: 't', baseUrl });
      const response = await handler(get('/', { Authorization: 'Bearer t' }));
      const mount = new URL(baseUrl).pathname;
      expect(await pathsOf(response)).toContain(`${mount}/v2/acme/tickets/create`);
    }
  });

  it('accepts a baseUrl whose segments merely start with v', async () => {
    const handler = createFetchHandler(acmeDefinition(), {
      token: 't',
      baseUrl: 'https://p.example/vendors/',
    });
    const response = await handler(get('/', { Authorization: 'Bearer t' }));
    expect(await pathsOf(response)).toContain('/vendors/acme/tickets/create');
  });

  it('rejects a maxBodyBytes that is not a positive integer', () => {
    for (const maxBodyBytes of [0, -1, 1.5, Number.NaN]) {
      expect(create({ token: 't', maxBodyBytes })).toThrow(/options\.maxBodyBytes/);
    }
  });

  it('rejects jwks timings that are not non-negative integers, naming the option', () => {
    for (const key of ['cooldownMs', 'timeoutMs', 'cacheMaxAgeMs']) {
      for (const value of [-1, 1.5, Number.NaN]) {
        expect(create({ auth, jwks: { [key]: value } })).toThrow(
          new RegExp(`options\\.jwks\\.${key}`),
        );
      }
    }
  });

  it('reads an option set to undefined as absent, so an unset variable passes straight in', async () => {
    const env: Record<string, string | undefined> = { ACME_TOKEN: 't' };
    const logger = memoryLogger();
    // Typed without a cast: under exactOptionalPropertyTypes each option must admit undefined.
    const options: FetchHandlerOptions = {
      token: env.ACME_TOKEN,
      auth: undefined,
      baseUrl: env.ACME_BASE_URL,
      maxBodyBytes: undefined,
      logger,
      jwks: { fetch: undefined, cooldownMs: undefined },
    };
    const handler = createFetchHandler(acmeDefinition(), options);
    expect((await handler(get('/'))).status).toBe(401);
    expect((await handler(get('/', { Authorization: 'Bearer t' }))).status).toBe(200);
    createFetchHandler(acmeDefinition(), { token: env.ACME_MISSING, logger, jwks: undefined });
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/without authentication/);
  });
});
