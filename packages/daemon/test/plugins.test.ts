import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import { createFetchHandler, definePlugin, type PluginDefinition } from '@svc/plugin-kit';
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

interface Plugin {
  name: string;
  endpoint: string;
  origin: string;
  major: number | null;
  supported: number[] | null;
  auth: string;
  auth_env: string | null;
  commands: { group: string; name: string; path: string; method: string; scope: string }[];
  etag: string | null;
  installed_at: string;
  updated_at: string;
}

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

  it('reinstalling updates the record and keeps when it was first installed', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    const first = (await (
      await install({ endpoint: `${origin}/a`, name: 'acme' })
    ).json()) as Plugin;
    const again = await install({ endpoint: `${origin}/b/`, name: 'acme', auth_env: 'ACME_TOKEN' });
    expect(again.status).toBe(200);
    const second = (await again.json()) as Plugin;
    expect(second.installed_at).toBe(first.installed_at);
    expect(second.updated_at >= first.updated_at).toBe(true);
    expect(second.commands[0]?.path).toBe('/b/acme/tickets/create');
    expect(second.auth_env).toBe('ACME_TOKEN');
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

  it('an unreachable endpoint is a clear 422, not a hang', async () => {
    const server = await listen(() => new Response(null));
    const { origin } = server;
    await server.close();
    const { status, error } = await refusal(await install({ endpoint: origin, name: 'acme' }));
    expect(status).toBe(422);
    expect(error.message).toContain(`could not reach ${origin}/versions`);
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
    ['an unknown field', { endpoint: 'http://127.0.0.1/x', name: 'acme', extra: 1 }, undefined],
  ])('refuses %s before fetching anything', async (_, body, field) => {
    const { status, error } = await refusal(await install(body));
    expect([400, 422]).toContain(status);
    if (field !== undefined) expect(error.field).toBe(field);
  });

  it('is the owner’s: an app token gets 403', async () => {
    const app = (await t.appToken(['svc:llm', 'svc:act'])).token;
    const res = await install({ endpoint: 'http://127.0.0.1:9/x', name: 'acme' }, app);
    expect(res.status).toBe(403);
    expect((await t.call('/v1/plugins', { token: app })).status).toBe(403);
  });
});

describe('plugins.remove', () => {
  it('answers what it removed; then the plugin is gone', async () => {
    const handler = createFetchHandler(acme(), { logger: quiet });
    const origin = await serveAt((request) => handler(request));
    expect((await install({ endpoint: origin, name: 'acme' })).status).toBe(200);
    const res = await t.call('/v1/plugins/acme', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'acme', origin });
    expect((await t.call('/v1/plugins/acme')).status).toBe(404);
    expect((await t.call('/v1/plugins/acme', { method: 'DELETE' })).status).toBe(404);
    expect(events('plugin.removed').at(-1)?.subject_id).toBe('acme');
  });
});

function concat(head: number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
