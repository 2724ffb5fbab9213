import { describe, expect, it } from 'vitest';
import { createFetchHandler, definePlugin } from '../src/index.ts';
import { acmeDefinition, get, manifestOf, memoryLogger, pathsOf } from './helpers.ts';

const open = () => createFetchHandler(acmeDefinition(), { logger: memoryLogger() });

describe('the archive', () => {
  it('is an uncompressed ustar with the right headers', async () => {
    const response = await open()(get('/plugins'));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/x-tar');
    expect(response.headers.get('Cache-Control')).toBe('no-transform');
    expect(response.headers.get('Content-Encoding')).toBeNull();
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(response.headers.get('Content-Length')).toBe(String(bytes.length));
    expect(bytes.length % 512).toBe(0);
    // ustar magic at offset 257; no gzip magic (1f 8b) at the start
    expect(new TextDecoder().decode(bytes.subarray(257, 262))).toBe('ustar');
    expect(bytes[0] === 0x1f && bytes[1] === 0x8b).toBe(false);
  });

  it('declares name, major, description, auth and every command in plugin.json', async () => {
    const manifest = await manifestOf(await open()(get('/plugins')));
    expect(manifest.name).toBe('acme');
    expect(manifest.major).toBeNull();
    expect(manifest.description).toBe('Acme ticket tracker');
    expect(manifest.auth).toBe('none');
    expect(manifest.groups).toEqual([
      { name: 'tickets', description: 'Read and write tickets', scope: 'acme:tickets' },
      { name: 'admin', description: '', scope: 'acme:admin' },
    ]);
    const create = manifest.commands.find((c) => c.name === 'create');
    expect(create).toEqual({
      group: 'tickets',
      name: 'create',
      description: 'Create a ticket',
      input: acmeDefinition().groups.tickets.commands.create.input,
      streaming: false,
      scope: 'acme:tickets',
      rest: { method: 'POST', path: '/plugins/acme/tickets/create' },
    });
    expect(manifest.commands.map((c) => `${c.group}/${c.name}`)).toEqual([
      'tickets/create',
      'tickets/echo',
      'tickets/watch',
      'tickets/refuse',
      'tickets/crash',
      'admin/purge',
    ]);
  });

  it('declares a command without input as accepting any object', async () => {
    const manifest = await manifestOf(await open()(get('/')));
    expect(manifest.commands.find((c) => c.name === 'echo')?.input).toEqual({ type: 'object' });
  });

  it('marks async generator handlers as streaming, and honours an explicit flag', async () => {
    const def = definePlugin({
      name: 'acme',
      description: 'd',
      groups: {
        g: {
          commands: {
            gen: { description: 'd', async *handler() {} },
            flagged: { description: 'd', streaming: true, handler: () => ({}) },
            plain: { description: 'd', handler: () => ({}) },
          },
        },
      },
    });
    const manifest = await manifestOf(
      await createFetchHandler(def, { logger: memoryLogger() })(get('/')),
    );
    expect(manifest.commands.map((c) => c.streaming)).toEqual([true, true, false]);
  });

  it('names the auth mode', async () => {
    const token = createFetchHandler(acmeDefinition(), { token: 't' });
    const res = await token(get('/', { Authorization: 'Bearer t' }));
    expect((await manifestOf(res)).auth).toBe('token');
    const directory = createFetchHandler(acmeDefinition(), {
      auth: { issuer: 'https://dir.example', audience: 'https://p.example/' },
    });
    expect((await manifestOf(await directory(get('/')))).auth).toBe('directory');
  });

  it('is byte-identical across handlers built from the same definition', async () => {
    const a = new Uint8Array(await (await open()(get('/plugins'))).arrayBuffer());
    const b = new Uint8Array(await (await open()(get('/plugins'))).arrayBuffer());
    expect(a).toEqual(b);
  });
});

describe('the mount in rest.path', () => {
  const handler = open();
  const pathsAt = async (path: string) => (await pathsOf(await handler(get(path))))[0];

  it('is empty at the origin root', async () => {
    expect(await pathsAt('/')).toBe('/acme/tickets/create');
  });

  it('is the request path of a GET on the mount, with or without a trailing slash', async () => {
    expect(await pathsAt('/plugins')).toBe('/plugins/acme/tickets/create');
    expect(await pathsAt('/plugins/')).toBe('/plugins/acme/tickets/create');
    expect(await pathsAt('/a/b/c')).toBe('/a/b/c/acme/tickets/create');
  });

  it('drops a trailing /<plugin>/... from the request path', async () => {
    expect(await pathsAt('/plugins/acme')).toBe('/plugins/acme/tickets/create');
    expect(await pathsAt('/plugins/acme/x')).toBe('/plugins/acme/tickets/create');
    expect(await pathsAt('/plugins/acme/tickets')).toBe('/plugins/acme/tickets/create');
  });

  it("is the prefix before the plugin's last segment, for a mount ending in the plugin's name too", async () => {
    expect(await pathsAt('/acme/acme')).toBe('/acme/acme/tickets/create');
    expect(await pathsAt('/acme/acme/tickets')).toBe('/acme/acme/tickets/create');
  });

  it('keeps the raw (percent-encoded) path', async () => {
    expect(await pathsAt('/my%20plugins/')).toBe('/my%20plugins/acme/tickets/create');
  });

  it('comes from baseUrl when given, whatever path the proxy forwarded', async () => {
    const behindProxy = createFetchHandler(acmeDefinition(), {
      logger: memoryLogger(),
      baseUrl: 'https://public.example/tools/acme-proxy/',
    });
    for (const path of ['/', '/internal/x', '/acme/tickets']) {
      expect((await pathsOf(await behindProxy(get(path))))[0]).toBe(
        '/tools/acme-proxy/acme/tickets/create',
      );
    }
  });

  it('is empty for a baseUrl at the origin root', async () => {
    const rooted = createFetchHandler(acmeDefinition(), {
      logger: memoryLogger(),
      baseUrl: 'https://public.example',
    });
    expect((await pathsOf(await rooted(get('/deep/path'))))[0]).toBe('/acme/tickets/create');
  });
});

describe('ETag and conditional requests', () => {
  const handler = open();

  it('sends a strong ETag that changes with the mount', async () => {
    const a = (await handler(get('/a'))).headers.get('ETag');
    const again = (await handler(get('/a/'))).headers.get('ETag');
    const b = (await handler(get('/b'))).headers.get('ETag');
    expect(a).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(again).toBe(a);
    expect(b).not.toBe(a);
  });

  it('answers 304 with no body and the ETag when If-None-Match matches', async () => {
    const etag = (await handler(get('/a'))).headers.get('ETag') ?? '';
    for (const condition of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const response = await handler(get('/a', { 'If-None-Match': condition }));
      expect(response.status).toBe(304);
      expect(response.headers.get('ETag')).toBe(etag);
      expect(response.headers.get('Cache-Control')).toBe('no-transform');
      expect(response.headers.get('Svc-Request-Id')).toBeTruthy();
      expect(await response.text()).toBe('');
    }
  });

  it('answers 200 when If-None-Match does not match', async () => {
    const response = await handler(get('/a', { 'If-None-Match': '"nope", W/"other"' }));
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('an ETag of one mount does not match the archive of another', async () => {
    const etag = (await handler(get('/a'))).headers.get('ETag') ?? '';
    expect((await handler(get('/b', { 'If-None-Match': etag }))).status).toBe(200);
  });
});

describe('HEAD', () => {
  it('answers like GET without a body', async () => {
    const handler = open();
    const got = await handler(get('/plugins'));
    const head = await handler(new Request('http://127.0.0.1/plugins', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('ETag')).toBe(got.headers.get('ETag'));
    expect(head.headers.get('Content-Type')).toBe('application/x-tar');
    expect(head.headers.get('Content-Length')).toBe(got.headers.get('Content-Length'));
    expect(await head.text()).toBe('');
  });
});

describe('the archive cache', () => {
  /**
   * A handler counting the archives it builds. The handler serves a copy of the definition, but
   * its commands' functions are the author's own, and each build asks each what kind of function
   * it is (a generator streams): the first command's handler counts.
   */
  function counted() {
    const def = acmeDefinition();
    const counter = { builds: 0 };
    Object.defineProperty(def.groups.tickets.commands.create.handler, Symbol.toStringTag, {
      get: () => {
        counter.builds++;
        return undefined;
      },
    });
    const handler = createFetchHandler(def, { logger: memoryLogger() });
    counter.builds = 0; // creation asks too (a sync generator is refused)
    return { handler, counter };
  }

  it('builds an archive once per mount', async () => {
    const { handler, counter } = counted();
    await handler(get('/one'));
    await handler(get('/one/'));
    await handler(get('/one/acme/tickets'));
    expect(counter.builds).toBe(1);
    await handler(get('/two'));
    expect(counter.builds).toBe(2);
  });

  it('is bounded: many mounts evict the oldest, which is rebuilt when asked again', async () => {
    // Archives are kept by mount (64) and by the route of each known path (256 paths).
    const { handler, counter } = counted();
    await handler(get('/first'));
    for (let i = 0; i < 300; i++) await handler(get(`/m${i}`));
    expect(counter.builds).toBe(301);
    await handler(get('/m299'));
    expect(counter.builds).toBe(301);
    await handler(get('/first'));
    expect(counter.builds).toBe(302);
  });
});
