import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import { createFetchHandler, definePlugin, type PluginDefinition } from '@svc/plugin-kit';
import { writeTar } from '@svc/plugin-kit/archive';
import type { Plugin } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonLog, envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

// Real plugins: the kit's handler behind a real HTTP server on 127.0.0.1, read by a real daemon.

const acme = (version?: number): PluginDefinition =>
  definePlugin({
    name: 'acme',
    ...(version !== undefined && { version }),
    description: `Acme support tickets${version === undefined ? '' : ` v${version}`}`,
    groups: {
      tickets: {
        description: 'Support tickets',
        commands: {
          create: {
            description: 'Open a ticket',
            input: { type: 'object', properties: { title: { type: 'string' } } },
            handler: ({ title }: { title: string }) => ({ id: 'T-1', title }),
          },
        },
      },
    },
  });

type Serve = (request: Request, path: string) => Response | Promise<Response>;

/** An HTTP server on 127.0.0.1 answering GETs through `serve`; the daemon only ever GETs. */
async function listen(serve: Serve): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? 'GET',
      headers: Object.entries(req.headers).flatMap(([name, value]) =>
        typeof value === 'string' ? [[name, value] as [string, string]] : [],
      ),
    });
    const response = await serve(request, req.url ?? '/');
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const quiet = { warn() {} };
const servers: { close(): Promise<void> }[] = [];
async function serveAt(serve: Serve): Promise<string> {
  const server = await listen(serve);
  servers.push(server);
  return server.origin;
}

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await t.stop();
});

/** The status and the error envelope of a refusal. */
async function refusal(res: Parameters<typeof envelope>[0]) {
  return { status: res.status, error: await envelope(res) };
}

const install = (body: Record<string, unknown>, token?: string) =>
  t.call('/v1/plugins', { ...json(body), ...(token !== undefined && { token }) });

function events(kind: string): { subject_id: string; payload: string }[] {
  const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
  try {
    return db
      .prepare('SELECT subject AS subject_id, payload FROM events WHERE kind = ? ORDER BY seq')
      .all(kind) as { subject_id: string; payload: string }[];
  } finally {
    db.close();
  }
}

describe('plugins.install', () => {
  it('keeps the origin as transport and each full path, from a handler under a mount', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const res = await install({ endpoint: `${origin}/plugins`, name: 'acme' });
    expect(res.status).toBe(200);
    const plugin = (await res.json()) as Plugin;
    expect(plugin).toMatchObject({
      name: 'acme',
      endpoint: `${origin}/plugins`,
      origin,
      major: null,
      supported: null,
      auth: 'none',
      auth_env: null,
      commands: [
        {
          group: 'tickets',
          name: 'create',
          method: 'POST',
          path: '/plugins/acme/tickets/create',
          scope: 'acme:tickets',
        },
      ],
    });
    expect(plugin.etag).toMatch(/^"/);
    expect(await (await t.call('/v1/plugins/acme')).json()).toEqual(plugin);
    const list = (await (await t.call('/v1/plugins')).json()) as { data: Plugin[] };
    expect(list.data.map((p) => p.name)).toContain('acme');
    expect(events('plugin.installed').at(-1)?.subject_id).toBe('acme');
  });

  it('reads the archive of a handler whose mount holds the plugin name before its end as <mount>/<name>/', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    for (const [mount, path] of [
      ['/teams/acme/tools', '/teams/acme/tools/acme/tickets/create'],
      ['/acme/acme/x', '/acme/acme/x/acme/tickets/create'],
      // ending in the name: asked as it is, as before
      ['/plugins/acme', '/plugins/acme/tickets/create'],
    ]) {
      const res = await install({ endpoint: `${origin}${mount}`, name: 'acme' });
      expect(res.status).toBe(200);
      const plugin = (await res.json()) as Plugin;
      expect(plugin.endpoint).toBe(`${origin}${mount}`);
      expect(plugin.commands.map((c) => c.path)).toEqual([path]);
    }
  });

  it('reinstalling updates the record and keeps when it was first installed', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    await t.call('/v1/plugins/acme', { method: 'DELETE' }); // an earlier test installed it
    const first = (await (
      await install({ endpoint: `${origin}/a`, name: 'acme' })
    ).json()) as Plugin;
    const updates = events('plugin.updated').length;
    const again = await install({ endpoint: `${origin}/b/`, name: 'acme' });
    expect(again.status).toBe(200);
    const second = (await again.json()) as Plugin;
    expect(second.installed_at).toBe(first.installed_at);
    expect(second.updated_at >= first.updated_at).toBe(true);
    expect(second.commands[0]?.path).toBe('/b/acme/tickets/create');
    expect(second.endpoint).toBe(`${origin}/b/`);
    expect(events('plugin.updated').length).toBe(updates + 1);
    expect(events('plugin.updated').at(-1)?.subject_id).toBe('acme');
  });

  it('a versioned plugin is read through /versions, and its latest major installed', async () => {
    const handler = createFetchHandler([acme(1), acme(2)], { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const res = await install({ endpoint: `${origin}/api/tools`, name: 'acme' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      major: 2,
      supported: [1, 2],
      description: 'Acme support tickets v2',
      commands: [{ path: '/api/tools/v2/acme/tickets/create' }],
    });
  });

  it('refuses an endpoint with a /v<N> segment for a versioned plugin, naming the one to pass', async () => {
    const handler = createFetchHandler([acme(1), acme(2)], { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    await t.call('/v1/plugins/acme', { method: 'DELETE' });
    for (const endpoint of [`${origin}/plugins/v1`, `${origin}/plugins/v2/acme`]) {
      const { status, error } = await refusal(await install({ endpoint, name: 'acme' }));
      expect(status).toBe(422);
      expect(error).toMatchObject({ code: 'validation_failed', field: 'endpoint' });
      expect(error.message).toContain('without any /v<N> segment, e.g. ' + `${origin}/plugins;`);
    }
    expect((await t.call('/v1/plugins/acme')).status).toBe(404);
  });

  it('names the endpoint to pass by whole segments (/v1beta is no version segment)', async () => {
    const handler = createFetchHandler([acme(1), acme(2)], { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const { error } = await refusal(
      await install({ endpoint: `${origin}/v1beta/v1`, name: 'acme' }),
    );
    expect(error.message).toContain(`e.g. ${origin}/v1beta;`);
  });

  it('refuses it too for a plugin that answers /versions only at its mount', async () => {
    const handler = createFetchHandler([acme(1), acme(2)], { logger: quiet });
    // Another implementation of the spec: `<mount>/v<N>/versions` is no list of majors there.
    const origin = await serveAt((request, path) =>
      /\/v\d+\/versions$/.test(path)
        ? Promise.resolve(new Response('not found', { status: 404 }))
        : handler(request),
    );
    const { status, error } = await refusal(
      await install({ endpoint: `${origin}/plugins/v1`, name: 'acme' }),
    );
    expect(status).toBe(422);
    expect(error).toMatchObject({ code: 'validation_failed', field: 'endpoint' });
    expect(error.message).toContain('its archive declares major 1');
    expect(error.message).toContain('without any /v<N> segment, e.g. ' + `${origin}/plugins;`);
    expect((await t.call('/v1/plugins/acme')).status).toBe(404);
  });

  it('reads a /versions a proxy compressed: only the archive must come uncompressed', async () => {
    const handler = createFetchHandler([acme(1), acme(2)], { logger: quiet });
    const origin = await serveAt(async (request, path) => {
      const answer = await handler(request);
      if (!path.endsWith('/versions')) return answer;
      const body = gzipSync(new Uint8Array(await answer.arrayBuffer()));
      return new Response(new Uint8Array(body), {
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      });
    });
    const res = await install({ endpoint: `${origin}/plugins`, name: 'acme' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ major: 2, supported: [1, 2] });
  });

  it('keeps auth_env only for a plugin that takes a shared token', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const res = await install({
      endpoint: `${origin}/plugins`,
      name: 'acme',
      auth_env: 'ACME_TOKEN',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ auth: 'none', auth_env: null });
  });

  it('refuses an archive whose paths lack the mount, and stores nothing', async () => {
    // A proxy that strips `/plugins` before the handler, which then thinks it sits at the root.
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request, path) =>
      handler(new Request(new URL(path.replace(/^\/plugins/, '') || '/', request.url), request)),
    );
    await t.call('/v1/plugins/acme', { method: 'DELETE' });
    const res = await install({ endpoint: `${origin}/plugins`, name: 'acme' });
    const { status, error } = await refusal(res);
    expect(status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.field).toBe('endpoint');
    expect(error.message).toContain('/acme/tickets/create');
    expect(error.message).toContain("outside the endpoint's path /plugins");
    expect((await t.call('/v1/plugins/acme')).status).toBe(404);
  });

  it.each([
    ['gzip bytes', (tar: Uint8Array) => gzipSync(tar), {}, 'gzip-compressed'],
    ['bzip2 bytes', (tar: Uint8Array) => concat([0x42, 0x5a, 0x68, 0x39], tar), {}, 'bzip2'],
    ['xz bytes', (tar: Uint8Array) => concat([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], tar), {}, 'xz'],
    ['zstd bytes', (tar: Uint8Array) => concat([0x28, 0xb5, 0x2f, 0xfd], tar), {}, 'zstd'],
    [
      'a Content-Encoding',
      (tar: Uint8Array) => gzipSync(tar),
      { 'Content-Encoding': 'gzip' },
      'Content-Encoding: gzip',
    ],
  ])('refuses a compressed archive: %s', async (_, compress, headers, reason) => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt(async (request) => {
      const archive = await handler(request);
      const tar = new Uint8Array(await archive.arrayBuffer());
      return new Response(new Uint8Array(compress(tar)), {
        headers: { 'Content-Type': 'application/x-tar', ...headers },
      });
    });
    await t.call('/v1/plugins/acme', { method: 'DELETE' });
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(422);
    expect(error.field).toBe('endpoint');
    expect(error.message).toContain(reason);
    expect((await t.call('/v1/plugins/acme')).status).toBe(404);
  });

  it('a directory-mode plugin installs with no token: its archive is public', async () => {
    const handler = createFetchHandler(acme(), {
      auth: { issuer: 'https://directory.test', audience: 'https://tools.test/plugins' },
      logger: quiet,
    });
    const origin = await serveAt((request) => handler(request));
    const res = await install({ endpoint: `${origin}/plugins`, name: 'acme' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ auth: 'directory', auth_env: null });
  });

  it('refuses an archive that names another plugin', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'other' }));
    expect(status).toBe(422);
    expect(error.field).toBe('name');
    expect(error.message).toContain("declares the plugin 'acme', not 'other'");
  });

  it('refuses what is not a plugin archive, naming what came back', async () => {
    const origin = await serveAt((_, path) =>
      path === '/html'
        ? new Response('<html></html>', { headers: { 'Content-Type': 'text/html' } })
        : new Response('gone', { status: 404 }),
    );
    const html = await refusal(await install({ endpoint: `${origin}/html`, name: 'acme' }));
    expect(html.status).toBe(422);
    expect(html.error.message).toContain('did not send a tar archive');
    const missing = await refusal(await install({ endpoint: `${origin}/none`, name: 'acme' }));
    expect(missing.status).toBe(422);
    expect(missing.error.message).toContain('answered 404');
  });

  it('an unreachable endpoint is said as such (400 invalid_request), not a hang nor a bad archive', async () => {
    const server = await listen(() => new Response(null));
    const { origin } = server;
    await server.close();
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'endpoint' });
    expect(error.message).toContain(`could not reach ${origin}/versions`);
    expect(error.message).toContain("is the plugin's server running");
  });

  it('reads a token-guarded archive with the token given, and never keeps the token', async () => {
    const secret = 'plugin-secret-7f3a9c';
    const handler = createFetchHandler(acme(), { token: secret, logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const refused = await refusal(await install({ endpoint: `${origin}/p`, name: 'acme' }));
    expect(refused.status).toBe(422);
    expect(refused.error.message).toContain('answered 401');
    const res = await install({
      endpoint: `${origin}/p`,
      name: 'acme',
      auth_env: 'ACME_TOKEN',
      token: secret,
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ auth: 'token', auth_env: 'ACME_TOKEN' });
    expect(text).not.toContain(secret);
    expect(JSON.stringify(events('plugin.updated'))).not.toContain(secret);
    expect(JSON.stringify(events('plugin.installed'))).not.toContain(secret);
    expect(await daemonLog(t.home)).not.toContain(secret);
  });

  it.each([
    ['an ftp endpoint', { endpoint: 'ftp://127.0.0.1/x', name: 'acme' }, 'endpoint'],
    ['credentials in the URL', { endpoint: 'http://u:p@127.0.0.1/x', name: 'acme' }, 'endpoint'],
    ['a bad name', { endpoint: 'http://127.0.0.1/x', name: 'Acme' }, 'name'],
    [
      'a bad env name',
      { endpoint: 'http://127.0.0.1/x', name: 'acme', auth_env: '1X' },
      'auth_env',
    ],
    ['an unknown field', { endpoint: 'http://127.0.0.1/x', name: 'acme', extra: 1 }, 'extra'],
  ])('refuses %s before fetching anything', async (_, body, named) => {
    const { status, error } = await refusal(await install(body));
    expect([400, 422]).toContain(status);
    // Refused by the body's schema: a fetch refused later would say it could not reach the URL.
    expect(error.message).not.toContain('could not reach');
    expect(`${error.field} ${error.message}`).toContain(named);
  });

  it("refuses the name 'svc' (422 naming name): its scopes would read as svc's own", async () => {
    const res = await install({ endpoint: 'http://127.0.0.1:9/plugins', name: 'svc' });
    expect(res.status).toBe(422);
    const error = await envelope(res);
    expect(error.field).toBe('name');
    expect(error.message).toMatch(/reserved/);
  });

  it('is the owner’s: an app token gets 403', async () => {
    const app = (await t.appToken(['svc:llm', 'svc:act'])).token;
    const res = await install({ endpoint: 'http://127.0.0.1:9/x', name: 'acme' }, app);
    expect(res.status).toBe(403);
    expect((await t.call('/v1/plugins', { token: app })).status).toBe(403);
  });
});

// Hand-made archives, for what no kit would serve.
const base = {
  name: 'acme',
  major: null as number | null,
  description: 'Acme',
  auth: 'none',
  groups: [{ name: 'tickets', description: '', scope: 'acme:tickets' }],
  commands: [
    {
      group: 'tickets',
      name: 'create',
      description: '',
      input: { type: 'object' } as unknown,
      streaming: false,
      scope: 'acme:tickets',
      rest: { method: 'POST', path: '/p/acme/tickets/create' },
    },
  ],
};
type Manifest = typeof base;
const tarOf = (manifest: unknown) =>
  new Uint8Array(
    writeTar([
      {
        name: 'plugin.json',
        data: new TextEncoder().encode(
          typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
        ),
      },
    ]),
  );
const command = (changes: Partial<Manifest['commands'][number]>) => ({
  ...base,
  commands: [{ ...base.commands[0]!, ...changes }],
});
/** Serves `manifest` as the archive at every path; `/versions` answers `versions` when given. */
async function serveManifest(manifest: unknown, versions?: unknown): Promise<string> {
  return serveAt((_, path) =>
    versions !== undefined && path.endsWith('/versions')
      ? Response.json(versions)
      : new Response(tarOf(manifest), { headers: { 'Content-Type': 'application/x-tar' } }),
  );
}

describe('plugins.install refuses a manifest that does not hold together', () => {
  it.each([
    [
      'a sibling of the mount',
      command({ rest: { method: 'POST', path: '/pX/acme/tickets/create' } }),
    ],
    ['a dot-dot segment', command({ rest: { method: 'POST', path: '/p/../acme/tickets/create' } })],
    ['an encoded dot-dot', command({ rest: { method: 'POST', path: '/p/%2e%2e/x/create' } })],
    ['a backslash', command({ rest: { method: 'POST', path: '/p\\..\\admin/create' } })],
    ['a query', command({ rest: { method: 'POST', path: '/p/acme/tickets/create?x=1' } })],
    ['a fragment', command({ rest: { method: 'POST', path: '/p/acme/tickets/create#x' } })],
  ])('a path with %s', async (_, manifest) => {
    const origin = await serveManifest(manifest);
    const { status, error } = await refusal(
      await install({ endpoint: `${origin}/p`, name: 'acme' }),
    );
    expect(status).toBe(422);
    expect(error.message).toContain("outside the endpoint's path /p");
  });

  it('a path naming another host, for an endpoint at the origin root', async () => {
    const origin = await serveManifest(
      command({ rest: { method: 'POST', path: '//evil.example/acme/tickets/create' } }),
    );
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(422);
    expect(error.message).toContain("outside the endpoint's path /");
  });

  it.each([
    ['a scope of another plugin', command({ scope: 'svc:act' }), 'outside its groups or scopes'],
    ['an undeclared group', command({ group: 'admin', scope: 'acme:admin' }), 'outside its groups'],
    [
      'a group scope of another plugin',
      { ...base, groups: [{ name: 'tickets', description: '', scope: 'other:tickets' }] },
      'gives group tickets the scope other:tickets',
    ],
    ['a command twice', { ...base, commands: [base.commands[0], base.commands[0]] }, 'twice'],
    ['a major without /versions', { ...base, major: 3 }, 'names no majors'],
    ['no commands list', { ...base, commands: undefined }, 'not a plugin manifest: commands'],
    ['no command at all', { ...base, commands: [] }, 'not a plugin manifest: commands'],
    ['no group at all', { ...base, groups: [], commands: [] }, 'not a plugin manifest: groups'],
    [
      'an empty group name',
      {
        ...base,
        groups: [{ name: '', description: '', scope: 'acme:' }],
        commands: [{ ...base.commands[0]!, group: '', scope: 'acme:' }],
      },
      'not a plugin manifest: groups',
    ],
    [
      'a command name no kit admits',
      command({ name: 'Create' }),
      'not a plugin manifest: commands',
    ],
    [
      'a group name too long to be half of a scope',
      {
        ...base,
        groups: [{ name: `g${'x'.repeat(63)}`, description: '', scope: `acme:g${'x'.repeat(63)}` }],
      },
      'not a plugin manifest: groups',
    ],
    ['a group twice', { ...base, groups: [base.groups[0], base.groups[0]] }, 'group tickets twice'],
    [
      'an encoded slash in a path',
      command({ rest: { method: 'POST', path: '/p/acme/tickets%2F..%2F..%2Fadmin' } }),
      'with an encoded slash',
    ],
  ])('%s', async (_, manifest, reason) => {
    const origin = await serveManifest(manifest);
    const { status, error } = await refusal(
      await install({ endpoint: `${origin}/p`, name: 'acme' }),
    );
    expect(status).toBe(422);
    expect(error.message).toContain(reason);
  });

  it("a versioned archive whose paths lack its major's /v<N>", async () => {
    for (const path of ['/p/v1/acme/tickets/create', '/p/acme/tickets/create']) {
      const origin = await serveManifest(
        { ...base, major: 2, commands: [{ ...base.commands[0]!, rest: { method: 'POST', path } }] },
        { latest: 2, supported: [1, 2] },
      );
      const { status, error } = await refusal(
        await install({ endpoint: `${origin}/p`, name: 'acme' }),
      );
      expect(status, path).toBe(422);
      expect(error.message).toContain("outside the endpoint's path /p/v2");
    }
  });

  it('an endpoint with whitespace or a control character, which would be no audience', async () => {
    for (const endpoint of [
      'http://127.0.0.1:9/p\t',
      'http://127.0.0.1:9/\np',
      ' http://127.0.0.1:9/p',
    ]) {
      const res = await install({ endpoint, name: 'acme' });
      expect(res.status, JSON.stringify(endpoint)).toBe(422);
      expect(await envelope(res)).toMatchObject({ field: 'endpoint' });
    }
  });

  it('a major other than the latest /versions names, or a /versions that is not one', async () => {
    const versioned = {
      ...base,
      major: 1,
      commands: [
        { ...base.commands[0]!, rest: { method: 'POST', path: '/p/v1/acme/tickets/create' } },
      ],
    };
    const stale = await serveManifest(versioned, { latest: 2, supported: [1, 2] });
    const first = await refusal(await install({ endpoint: `${stale}/p`, name: 'acme' }));
    expect(first.error.message).toContain('declares major 1, but /versions names 2 the latest');
    const odd = await serveManifest(versioned, { latest: 3, supported: [1] });
    const second = await refusal(await install({ endpoint: `${odd}/p`, name: 'acme' }));
    expect(second.error.message).toContain('is not {"latest": N, "supported": [...]}');
    // JSON that does not parse claims majors all the same
    const broken = await serveAt((_, path) =>
      path.endsWith('/versions')
        ? new Response('{"latest":', { headers: { 'Content-Type': 'application/json' } })
        : new Response(tarOf(versioned), { headers: { 'Content-Type': 'application/x-tar' } }),
    );
    const third = await refusal(await install({ endpoint: `${broken}/p`, name: 'acme' }));
    expect(third.status).toBe(422);
    expect(third.error.message).toContain('is not {"latest": N, "supported": [...]}');
  });

  // 1 500: past SQLite's JSON nesting limit (1 000); 20 000: past what JSON.stringify can walk.
  // Written out, not stringified, for that reason.
  it.each([1_500, 20_000])('a schema nested %i deep is a 422, not a 500', async (levels) => {
    const deep = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const origin = await serveManifest(
      JSON.stringify(command({ input: 'DEEP' })).replace('"DEEP"', deep),
    );
    const { status, error } = await refusal(
      await install({ endpoint: `${origin}/p`, name: 'acme' }),
    );
    expect(status).toBe(422);
    expect(error.message).toContain('nests too deeply');
  });
});

describe('plugins.install against a hostile or odd endpoint', () => {
  it('a tar whose size field is negative answers 422 and leaves the daemon answering', async () => {
    const tar = tarOf(base);
    tar.set(new Uint8Array(12), 124);
    tar.set(new TextEncoder().encode('-0001000'), 124);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : (tar[i] ?? 0);
    tar.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
    const origin = await serveAt(() => new Response(tar));
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(422);
    expect(error.message).toContain('did not send a tar archive');
    expect((await t.call('/v1/status')).status).toBe(200);
  });

  it('reads an archive packed by tar from a directory, which names the file ./plugin.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tar-'));
    try {
      writeFileSync(join(dir, 'plugin.json'), JSON.stringify(base));
      // `.` as the member: entries `./` and `./plugin.json`, as a plugin not built with the kit
      // may well ship it.
      const tar = new Uint8Array(execFileSync('tar', ['-C', dir, '-cf', '-', '.']));
      const origin = await serveAt(() => new Response(tar));
      const res = await install({ endpoint: `${origin}/p`, name: 'acme' });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toMatchObject({ name: 'acme' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await t.call('/v1/plugins/acme', { method: 'DELETE' });
    }
  });

  it('follows no redirect', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const target = await serveAt((request) => handler(request));
    const origin = await serveAt(() => Response.redirect(`${target}/plugins`, 302));
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(422);
    expect(error.message).toContain(`answered 302 (a redirect to ${target}/plugins: give`);
  });

  it('reads at most 8 MiB', async () => {
    const origin = await serveAt(() => new Response(new Uint8Array(9 * 1024 * 1024)));
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(422);
    expect(error.message).toContain('more than 8388608 bytes');
  });

  it('refuses a Content-Length over 8 MiB before reading the body', async () => {
    // Headers announcing 9 MiB and no body ever after: only a refusal by the header answers
    // now; reading would wait for the 10 s timeout.
    const stalled = createServer((_req, res) => {
      res.writeHead(200, {
        'Content-Type': 'application/x-tar',
        'Content-Length': 9 * 1024 * 1024,
      });
      res.flushHeaders();
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stalled.address() as AddressInfo;
      const started = Date.now();
      const { status, error } = await refusal(
        await install({ endpoint: `http://127.0.0.1:${port}`, name: 'acme' }),
      );
      expect(status).toBe(422);
      expect(error.message).toContain('more than 8388608 bytes');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      stalled.closeAllConnections();
      await new Promise((closed) => stalled.close(closed));
    }
  });

  it('a plugin taking a shared token needs auth_env, or no broker could call it', async () => {
    const handler = createFetchHandler(acme(), { token: 'tok-123', logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const { status, error } = await refusal(
      await install({ endpoint: origin, name: 'acme', token: 'tok-123' }),
    );
    expect(status).toBe(422);
    expect(error.field).toBe('auth_env');
  });

  it('a token that is no bearer token is refused, and not echoed', async () => {
    const res = await install({
      endpoint: 'http://127.0.0.1:9/p',
      name: 'acme',
      token: 'a\nSECRET-PART',
    });
    const text = await res.text();
    expect(res.status).toBe(422);
    expect(text).not.toContain('SECRET-PART');
  });
});

describe('plugins.list', () => {
  it('pages by name', async () => {
    for (const name of ['zeta', 'yota']) {
      const plugin = definePlugin({ ...acme(), name });
      const handler = createFetchHandler(plugin, { logger: quiet });
      const origin = await serveAt((request) => handler(request));
      expect((await install({ endpoint: origin, name })).status).toBe(200);
    }
    const first = (await (await t.call('/v1/plugins?limit=1&after=x')).json()) as {
      data: Plugin[];
      has_more: boolean;
      next_cursor: string;
    };
    expect(first.data.map((p) => p.name)).toEqual(['yota']);
    expect(first).toMatchObject({ has_more: true, next_cursor: 'yota' });
    const second = (await (
      await t.call(`/v1/plugins?limit=1&after=${first.next_cursor}`)
    ).json()) as {
      data: Plugin[];
      has_more: boolean;
    };
    expect(second.data.map((p) => p.name)).toEqual(['zeta']);
    expect(second.has_more).toBe(false);
    const event = events('plugin.installed').find((e) => e.subject_id === 'zeta');
    expect(JSON.parse(event?.payload ?? '{}')).toEqual({
      plugin: 'zeta',
      origin: expect.any(String),
      major: null,
      auth: 'none',
      commands: 1,
    });
  });
});

describe('plugins.remove', () => {
  it('answers what it removed; then the plugin is gone', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    expect((await install({ endpoint: origin, name: 'acme' })).status).toBe(200);
    const removals = events('plugin.removed').length;
    const res = await t.call('/v1/plugins/acme', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'acme', origin });
    expect((await t.call('/v1/plugins/acme')).status).toBe(404);
    expect((await t.call('/v1/plugins/acme', { method: 'DELETE' })).status).toBe(404);
    // one event for the one removal, none for the 404
    expect(events('plugin.removed').length).toBe(removals + 1);
    expect(events('plugin.removed').at(-1)?.subject_id).toBe('acme');
  });
});

function concat(head: number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
