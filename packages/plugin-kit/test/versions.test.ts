import { describe, expect, it } from 'vitest';
import { createFetchHandler, definePlugin, type PluginDefinition } from '../src/index.ts';
import { errorOf, get, manifestOf, memoryLogger, ORIGIN, pathsOf, post } from './helpers.ts';

function major(version: number, extra: PluginDefinition['groups'] = {}) {
  return definePlugin({
    name: 'acme',
    version,
    description: `Acme v${version}`,
    groups: {
      tickets: {
        commands: {
          create: {
            description: 'Create a ticket',
            handler: (_input, ctx) => ({ served_by: version, ctx_version: ctx.version }),
          },
        },
      },
      ...extra,
    },
  });
}

const v1 = major(1, {
  legacy: { commands: { export: { description: 'v1 only', handler: () => ({ legacy: true }) } } },
});
const v2 = major(2);
const handler = createFetchHandler([v1, v2], { logger: memoryLogger() });
const servedBy = async (path: string) => {
  const response = await handler(post(path, {}));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('GET <mount>/versions', () => {
  it('answers {latest, supported}', async () => {
    for (const path of ['/versions', '/plugins/versions', '/plugins/versions/']) {
      const response = await handler(get(path));
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('application/json');
      expect(await response.json()).toEqual({ latest: 2, supported: [1, 2] });
    }
  });

  it('lists majors in ascending order whatever the definition order', async () => {
    const reversed = createFetchHandler([v2, v1], { logger: memoryLogger() });
    expect(await (await reversed(get('/versions'))).json()).toEqual({
      latest: 2,
      supported: [1, 2],
    });
  });

  it('is served for a single definition with a version', async () => {
    const single = createFetchHandler(v2, { logger: memoryLogger() });
    expect(await (await single(get('/p/versions'))).json()).toEqual({ latest: 2, supported: [2] });
  });

  it('answers POST with 405', async () => {
    const response = await handler(post('/plugins/versions', {}));
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('GET, HEAD');
  });

  it("answers a POST on a major's archive with 405, and under it with 404", async () => {
    for (const [path, status] of [
      ['/plugins/v1/', 405],
      ['/plugins/v2', 405],
      ['/plugins/v1/acme', 405],
      ['/plugins/acme', 405],
      ['/', 405],
      ['/plugins/v1/acme/tickets', 404],
      ['/plugins/v1/other', 404],
      ['/plugins/v9/', 404],
    ] as const) {
      const response = await handler(post(path, {}));
      expect(`${path} ${response.status}`).toBe(`${path} ${status}`);
      if (status === 405) expect(response.headers.get('Allow')).toBe('GET, HEAD');
    }
    // a major not served is named, as on GET
    const missing = await errorOf(await handler(post('/plugins/v9/', {})));
    expect([missing.field, missing.received]).toEqual(['version', 9]);
  });
});

describe('versioned archives', () => {
  it('serves major N at <mount>/v<N>/ with /v<N> routes', async () => {
    for (const path of [
      '/plugins/v1',
      '/plugins/v1/',
      '/plugins/v1//',
      '/plugins/v1/acme/x',
      '/plugins/v1/x/y',
    ]) {
      const response = await handler(get(path));
      const manifest = await manifestOf(response);
      expect(manifest.major).toBe(1);
      expect(manifest.description).toBe('Acme v1');
      expect(manifest.commands.map((c) => c.rest.path)).toEqual([
        '/plugins/v1/acme/tickets/create',
        '/plugins/v1/acme/legacy/export',
      ]);
    }
    expect(await pathsOf(await handler(get('/v2/')))).toEqual(['/v2/acme/tickets/create']);
  });

  it('serves the latest for any GET without /v<N>, declaring its /v<N> routes', async () => {
    for (const path of ['/plugins', '/plugins/', '/plugins/acme/x']) {
      const manifest = await manifestOf(await handler(get(path)));
      expect(manifest.major).toBe(2);
      expect(manifest.commands.map((c) => c.rest.path)).toEqual([
        '/plugins/v2/acme/tickets/create',
      ]);
    }
  });

  it('answers a GET on a command path of any major with 405 and Allow: POST', async () => {
    for (const path of ['/plugins/v1/acme/legacy/export', '/plugins/acme/tickets/create']) {
      const response = await handler(get(path));
      expect(`${path} ${response.status}`).toBe(`${path} 405`);
      expect(response.headers.get('Allow')).toBe('POST');
    }
    const manifest = await manifestOf(await handler(get('/plugins/v1/acme/legacy')));
    expect(manifest.major).toBe(1);
    expect(manifest.commands[0]?.rest.path).toBe('/plugins/v1/acme/tickets/create');
  });

  it('takes the mount from baseUrl, adding /v<N>', async () => {
    const proxied = createFetchHandler([v1, v2], {
      logger: memoryLogger(),
      baseUrl: 'https://public.example/tools',
    });
    expect(await pathsOf(await proxied(get('/internal/v1/')))).toEqual([
      '/tools/v1/acme/tickets/create',
      '/tools/v1/acme/legacy/export',
    ]);
    expect(await pathsOf(await proxied(get('/')))).toEqual(['/tools/v2/acme/tickets/create']);
  });

  it('answers an unknown major with 404 not_found, naming the supported majors', async () => {
    for (const path of ['/plugins/v3/', '/plugins/v9/acme/tickets']) {
      const response = await handler(get(path));
      expect(response.status).toBe(404);
      const error = await errorOf(response);
      expect(error.code).toBe('not_found');
      expect(error.message).toMatch(/supported: 1, 2/);
      expect(error.field).toBe('version');
      expect(error.received).toBe(path.startsWith('/plugins/v3') ? 3 : 9);
    }
  });

  it('gives each major its own ETag', async () => {
    const one = (await handler(get('/p/v1/'))).headers.get('ETag');
    const two = (await handler(get('/p/v2/'))).headers.get('ETag');
    expect(one).toBeTruthy();
    expect(one).not.toBe(two);
  });

  it('keeps an unversioned single definition on unversioned paths', async () => {
    const { version: _drop, ...unversioned } = v1;
    const plain = createFetchHandler(unversioned, { logger: memoryLogger() });
    const manifest = await manifestOf(await plain(get('/plugins/versions')));
    expect(manifest.major).toBeNull();
    expect(manifest.commands[0]?.rest.path).toBe('/plugins/versions/acme/tickets/create');
  });
});

describe('versioned commands', () => {
  it('routes /v<N>/<plugin>/<group>/<command> to major N', async () => {
    expect((await servedBy('/plugins/v1/acme/tickets/create')).body).toEqual({
      served_by: 1,
      ctx_version: 1,
    });
    expect((await servedBy('/plugins/v2/acme/tickets/create')).body).toEqual({
      served_by: 2,
      ctx_version: 2,
    });
  });

  it('routes the un-prefixed path to the latest major (an alias)', async () => {
    expect((await servedBy('/plugins/acme/tickets/create')).body.served_by).toBe(2);
    expect((await servedBy('/acme/tickets/create')).body.served_by).toBe(2);
  });

  it('prefers the longest suffix: /v1/... over the latest alias', async () => {
    // `/v1/acme/tickets/create` also ends with the alias `/acme/tickets/create` of v2
    expect((await servedBy('/v1/acme/tickets/create')).body.served_by).toBe(1);
  });

  it('answers an unknown major with 404 not_found, not the latest', async () => {
    const { status, body } = await servedBy('/plugins/v7/acme/tickets/create');
    expect(status).toBe(404);
    const error = body.error as Record<string, unknown>;
    expect(error.code).toBe('not_found');
    expect(error.message).toMatch(/no major 7; supported: 1, 2/);
    expect(error.received).toBe(7);
  });

  it('answers a command missing from the addressed major with 404 not_found', async () => {
    const { status, body } = await servedBy('/plugins/v2/acme/legacy/export');
    expect(status).toBe(404);
    expect((body.error as { code: string }).code).toBe('not_found');
    expect((await servedBy('/plugins/v1/acme/legacy/export')).status).toBe(200);
    // the latest alias serves only the latest's commands
    expect((await servedBy('/plugins/acme/legacy/export')).status).toBe(404);
  });

  it('gives ctx.version null to an unversioned plugin', async () => {
    const { version: _drop, ...unversioned } = v2;
    const plain = createFetchHandler(unversioned, { logger: memoryLogger() });
    const response = await plain(new Request(`${ORIGIN}/acme/tickets/create`, { method: 'POST' }));
    expect(await response.json()).toEqual({ served_by: 2, ctx_version: null });
  });
});
