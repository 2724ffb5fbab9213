import { describe, expect, it } from 'vitest';
import { createFetchHandler, definePlugin } from '../src/index.ts';
import { acmeDefinition, errorOf, get, memoryLogger, ORIGIN, pathsOf, post } from './helpers.ts';

const handler = createFetchHandler(acmeDefinition(), { logger: memoryLogger() });
const call = (path: string) => handler(post(path, { title: 'x' }));

describe('POST routing by the longest matching suffix', () => {
  it('runs a command at the origin root, under a prefix, and under a deep prefix', async () => {
    for (const path of [
      '/acme/tickets/create',
      '/plugins/acme/tickets/create',
      '/a/b/c/acme/tickets/create',
    ]) {
      const response = await call(path);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { id: string }).id).toBe('T-1');
    }
  });

  it('answers each mount its own, however often the paths come back, and a very long one', async () => {
    const long = `/${'m'.repeat(600)}`;
    for (let round = 0; round < 3; round++) {
      for (const mount of ['/one', '/two', long]) {
        expect(await pathsOf(await handler(get(`${mount}/acme`)))).toContain(
          `${mount}/acme/tickets/create`,
        );
        expect((await call(`${mount}/acme/tickets/create`)).status).toBe(200);
        expect((await call(`${mount}/acme/tickets/nope`)).status).toBe(404);
      }
    }
  });

  it('works under a mount that repeats the plugin name', async () => {
    expect((await call('/acme/acme/tickets/create')).status).toBe(200);
  });

  it('matches whole segments only', async () => {
    const response = await call('/plugins/xacme/tickets/create');
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('not_found');
    expect((await call('/plugins/acme/tickets/create-now')).status).toBe(404);
  });

  it('ignores the query string', async () => {
    expect((await call('/plugins/acme/tickets/create?x=1')).status).toBe(200);
  });

  it('answers 404 not_found for an unknown command, group or plugin', async () => {
    for (const path of [
      '/acme/tickets/delete',
      '/acme/nope/create',
      '/other/tickets/create',
      '/plugins',
    ]) {
      const response = await call(path);
      expect(response.status).toBe(404);
      const error = await errorOf(response);
      expect(error.code).toBe('not_found');
      expect(error.request_id).toBe(response.headers.get('Svc-Request-Id'));
    }
  });

  it('never splits a segment at an encoded slash (%2F, %2f)', async () => {
    for (const path of [
      '/acme/tickets%2Fcreate',
      '/acme%2Ftickets/create',
      '/acme/tickets%2fcreate',
    ]) {
      expect((await call(path)).status).toBe(404);
    }
  });

  it('compares the raw path: percent-encoded letters do not match', async () => {
    expect((await call('/acme/tickets/cr%65ate')).status).toBe(404);
  });

  it('treats .. and %2e%2e as URL parsing resolved them, never as an escape', async () => {
    // `/acme/tickets/../admin/purge` is `/acme/admin/purge` once parsed: the purge command
    expect(new URL(`${ORIGIN}/acme/tickets/../admin/purge`).pathname).toBe('/acme/admin/purge');
    expect((await call('/acme/tickets/../admin/purge')).status).toBe(200);
    // dot segments resolved away leave a path that names no command
    for (const path of [
      '/acme/tickets/create/..',
      '/acme/tickets/create/%2e%2e',
      '/acme/tickets/%2e%2e/create',
      '/acme/tickets/..%2Fcreate',
      '/acme/tickets/.%2e/.%2E/create',
    ]) {
      const response = await call(path);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
    }
  });

  it('does not accept a trailing slash after a command', async () => {
    expect((await call('/acme/tickets/create/')).status).toBe(404);
  });
});

describe('methods', () => {
  it('answers GET and HEAD on a command path with 405 and Allow: POST', async () => {
    for (const path of ['/plugins/acme/tickets/create', '/acme/tickets/create']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await handler(new Request(`${ORIGIN}${path}`, { method }));
        expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 405`);
        expect(response.headers.get('Allow')).toBe('POST');
        expect(response.headers.get('Svc-Request-Id')).toBeTruthy();
        if (method === 'GET') {
          const error = await errorOf(response);
          expect(error.code).toBe('method_not_allowed');
          expect(error.received).toBe('GET');
        } else {
          expect(await response.text()).toBe('');
        }
      }
    }
    // one path deeper or shallower is no command: the archive, as on any other GET path
    expect((await handler(get('/plugins/acme/tickets'))).status).toBe(200);
    expect((await handler(get('/plugins/acme/tickets/create/x'))).status).toBe(200);
  });

  it('answers a POST on the archive with 405 and Allow: GET, HEAD', async () => {
    for (const path of ['/', '/acme', '/acme/', '/plugins/acme', '/plugins/acme/?x=1']) {
      const response = await handler(post(path, {}));
      expect(`${path} ${response.status}`).toBe(`${path} 405`);
      expect(response.headers.get('Allow')).toBe('GET, HEAD');
      const error = await errorOf(response);
      expect(error.code).toBe('method_not_allowed');
      expect(error.received).toBe('POST');
    }
  });

  it("answers a POST on baseUrl's own path with 405: there the mount is known", async () => {
    const behind = createFetchHandler(acmeDefinition(), {
      baseUrl: 'https://pub.example/plugins',
      logger: memoryLogger(),
    });
    for (const path of ['/plugins', '/plugins/', '/', '/plugins/acme']) {
      const response = await behind(post(path, {}));
      expect(`${path} ${response.status}`).toBe(`${path} 405`);
      expect(response.headers.get('Allow')).toBe('GET, HEAD');
    }
    expect((await behind(post('/elsewhere', {}))).status).toBe(404);
  });

  it('answers a POST on a path that is not plainly the archive with 404 not_found', async () => {
    // An unversioned handler serves its archive on any GET, but a POST to `/plugins` or under the
    // plugin's name is likelier a command mistyped than a mount posted to.
    for (const path of ['/plugins', '/plugins/', '/plugins/acme/tickets', '/nope/acme/x']) {
      const response = await handler(post(path, {}));
      expect(`${path} ${response.status}`).toBe(`${path} 404`);
      expect((await errorOf(response)).code).toBe('not_found');
    }
  });

  it('answers other methods on a command path with 405 and Allow: POST', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const response = await handler(
        new Request(`${ORIGIN}/plugins/acme/tickets/create`, { method }),
      );
      expect(response.status).toBe(405);
      expect(response.headers.get('Allow')).toBe('POST');
      const error = await errorOf(response);
      expect(error.code).toBe('method_not_allowed');
      expect(error.received).toBe(method);
    }
  });

  it('answers other methods elsewhere with 405 and Allow: GET, HEAD', async () => {
    const response = await handler(new Request(`${ORIGIN}/plugins`, { method: 'DELETE' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('GET, HEAD');
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const command = await handler(
      new Request(`${ORIGIN}/plugins/acme/tickets/create`, { method: 'OPTIONS' }),
    );
    expect(command.status).toBe(204);
    expect(command.headers.get('Allow')).toBe('POST');
    expect(command.headers.get('Svc-Request-Id')).toBeTruthy();
    const archive = await handler(new Request(`${ORIGIN}/plugins`, { method: 'OPTIONS' }));
    expect(archive.status).toBe(204);
    expect(archive.headers.get('Allow')).toBe('GET, HEAD');
  });

  it('answers each method on one path its own, whichever came first, every time', async () => {
    // The router keeps what a path resolves to per method, and the last URL's routes: one method
    // or URL must not answer another's.
    const fresh = createFetchHandler(acmeDefinition(), { logger: memoryLogger() });
    const at = (path: string, method: string) =>
      fresh(
        method === 'POST'
          ? post(path, { title: 'x' })
          : new Request(`${ORIGIN}${path}`, { method }),
      ).then((response) => response.status);
    for (let round = 0; round < 2; round++) {
      for (const [path, method, status] of [
        ['/p/acme/tickets/create', 'OPTIONS', 204],
        ['/p/acme/tickets/create', 'GET', 405],
        ['/p/acme/tickets/create', 'POST', 200],
        ['/p/acme/tickets/create', 'PUT', 405],
        ['/p/acme', 'POST', 405],
        ['/p/acme/tickets', 'POST', 404],
        ['/p/acme', 'GET', 200],
        ['/p/acme', 'HEAD', 200],
        ['/p/acme/tickets/nope', 'POST', 404],
        // the last URL is remembered whole: its query, and a path one letter short, differ
        ['/p/acme/tickets/create?x=1', 'POST', 200],
        ['/p/acme/tickets/creat', 'POST', 404],
        ['/p/acme/tickets/create?x=1', 'GET', 405],
        ['/p/acme/tickets/creat', 'GET', 200],
      ] as const) {
        expect(`${method} ${path} ${await at(path, method)}`).toBe(`${method} ${path} ${status}`);
      }
    }
  });
});

describe('an unversioned plugin under a mount holding a /v<N> segment', () => {
  it('keeps the segment in the mount of an unversioned plugin', async () => {
    for (const path of ['/api/v1/plugins', '/api/v1/plugins/', '/api/v1/plugins/acme/x']) {
      expect(await pathsOf(await handler(get(path)))).toContain(
        '/api/v1/plugins/acme/tickets/create',
      );
    }
    expect((await call('/api/v1/plugins/acme/tickets/create')).status).toBe(200);
  });
});

describe('names shared by plugin, group and command', () => {
  // Plugin `ops` has a group `ops` with a command `run`, and a group `run` with a command `ops`.
  const def = definePlugin({
    name: 'ops',
    description: 'd',
    groups: {
      ops: { commands: { run: { description: 'd', handler: () => ({ which: 'ops/run' }) } } },
      run: { commands: { ops: { description: 'd', handler: () => ({ which: 'run/ops' }) } } },
    },
  });
  const ops = createFetchHandler(def, { logger: memoryLogger() });

  it('routes each path to the command its suffix names, whatever the mount', async () => {
    const which = async (path: string) =>
      ((await (await ops(post(path, {}))).json()) as { which: string }).which;
    expect(await which('/ops/ops/run')).toBe('ops/run');
    expect(await which('/ops/run/ops')).toBe('run/ops');
    expect(await which('/ops/ops/ops/run')).toBe('ops/run');
    expect(await which('/x/ops/run/ops')).toBe('run/ops');
  });
});
