import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { id, name, pathOf } from '../src/core/path.ts';
import { type APIError, Svc, SvcError } from '../src/index.ts';
import { envelope, json, ScriptedServer } from './helpers/server.ts';

const server = new ScriptedServer();
let baseUrl: string;
let client: Svc;

beforeAll(async () => {
  baseUrl = await server.listen();
  client = new Svc({ baseUrl, token: 'svc_owner_secret', defaultHeaders: { 'x-app': 'tests' } });
});
afterAll(() => server.close());
afterEach(() => vi.unstubAllEnvs());

const STATUS = {
  status: 'ready',
  version: '0.1.0',
  pid: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  uptime_s: 1,
  home: '/h',
  socket_path: '/h/daemon.sock',
  tcp: null,
};

describe('construction', () => {
  it('reads SVC_BASE_URL and SVC_TOKEN when not given', async () => {
    vi.stubEnv('SVC_BASE_URL', `${baseUrl}/`);
    vi.stubEnv('SVC_TOKEN', 'svc_app_fromenv');
    const fromEnv = new Svc();
    expect(fromEnv.baseUrl).toBe(baseUrl);
    server.reset((_req, res) => json(res, 200, STATUS));
    await fromEnv.system.status();
    expect(server.requests[0]?.headers.authorization).toBe('Bearer svc_app_fromenv');
  });

  it('explains how to connect when there is no base URL', () => {
    vi.stubEnv('SVC_BASE_URL', '');
    const error = (() => {
      try {
        new Svc();
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'missing_base_url' });
    expect((error as Error).message).toMatch(/@svc\/client\/node/);
    expect((error as Error).message).toMatch(/svc sys connect/);
  });

  it('names a bad option in a TypeError', () => {
    expect(() => new Svc({ baseUrl: 'localhost:1' })).toThrow(/options\.baseUrl/);
    expect(() => new Svc({ baseUrl, timeout: 0 })).toThrow(TypeError);
    expect(() => new Svc({ baseUrl, timeout: 2 ** 31 })).toThrow(/options\.timeout/);
    expect(() => new Svc({ baseUrl, maxRetries: 1.5 })).toThrow(/options\.maxRetries/);
    expect(() => new Svc({ baseUrl, token: 42 as never })).toThrow(/options\.token/);
    expect(() => client.system.status({ timeout: -1 })).toThrow(/options\.timeout/);
    expect(() => client.request('GET', 'v1/status')).toThrow(/path must be a string/);
    expect(() => client.request('GET', '/v1/status', { a: 1 })).toThrow(/GET request has no body/);
  });

  it('keeps a base URL path prefix and defaults timeout and retries', () => {
    const prefixed = new Svc({ baseUrl: 'https://example.com/svc/' });
    expect(prefixed).toMatchObject({
      baseUrl: 'https://example.com/svc',
      timeout: 60_000,
      maxRetries: 2,
    });
    expect(JSON.stringify(new Svc({ baseUrl, token: 'svc_owner_secret' }))).not.toMatch(/secret/);
  });
});

describe('resources', () => {
  it('system, grant and health call their routes with the token and headers', async () => {
    server.reset((req, res) => json(res, 200, { route: req.url }));
    await expect(client.system.status()).resolves.toEqual({ route: '/v1/status' });
    await expect(client.system.health()).resolves.toEqual({ route: '/healthz' });
    await expect(client.grant.get()).resolves.toEqual({ route: '/v1/grant' });
    await expect(client.health.get()).resolves.toEqual({ route: '/v1/health' });
    for (const req of server.requests) {
      expect(req.method).toBe('GET');
      expect(req.headers).toMatchObject({
        authorization: 'Bearer svc_owner_secret',
        accept: 'application/json',
        'x-app': 'tests',
      });
    }
  });

  it('per-call headers win and null removes a default', async () => {
    server.reset((_req, res) => json(res, 200, {}));
    await client.grant.get({ headers: { 'x-app': 'call', authorization: null } });
    expect(server.requests[0]?.headers['x-app']).toBe('call');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('takes headers as a record, a Headers or entries, names in any case', async () => {
    server.reset((_req, res) => json(res, 200, {}));
    await client.grant.get({ headers: { 'X-App': 'record' } });
    await client.grant.get({ headers: new Headers({ 'x-app': 'headers', 'x-more': ' padded ' }) });
    await client.grant.get({ headers: [['X-APP', 'entries']] });
    expect(server.requests.map((r) => r.headers['x-app'])).toEqual([
      'record',
      'headers',
      'entries',
    ]);
    expect(server.requests[1]?.headers['x-more']).toBe('padded');
  });

  it('a malformed header name or value is a TypeError, and nothing is sent', async () => {
    server.reset((_req, res) => json(res, 200, {}));
    for (const headers of [
      { 'bad name': 'x' },
      { 'x-ok': 'line\r\nbreak' },
      { 'x-ok': 'nul\0' },
      { 'x-ok': '日本' }, // not a ByteString: fetch would fail it as if the network had
      [['x-ok']] as unknown as [string, string][],
    ]) {
      const started = Date.now();
      await expect(client.grant.get({ headers })).rejects.toThrow(TypeError);
      expect(Date.now() - started).toBeLessThan(250); // refused at once, never retried
    }
    expect(server.requests).toHaveLength(0);
  });

  it('joins a name repeated within one Headers or entry list, as Headers.append does', async () => {
    server.reset((_req, res) => json(res, 200, {}));
    await client.grant.get({
      headers: [
        ['x-tag', 'a'],
        ['X-Tag', 'b'],
      ],
    });
    expect(server.requests[0]?.headers['x-tag']).toBe('a, b');
  });

  it("a fetch that adds to a call's headers changes no other call", async () => {
    server.reset((_req, res) => json(res, 200, {}));
    let calls = 0;
    const adding = new Svc({
      baseUrl,
      token: 'svc_owner_secret',
      fetch: (url, init) => {
        (init?.headers as Record<string, string>)[`x-call-${++calls}`] = 'yes';
        return fetch(url, init);
      },
    });
    await adding.system.status();
    await adding.system.status();
    expect(server.requests[1]?.headers['x-call-1']).toBeUndefined();
    expect(server.requests[1]?.headers['x-call-2']).toBe('yes');
  });

  it('auth.status reads readiness once the daemon is ready', async () => {
    const readiness = { providers: [{ provider: 'scripted', ready: true }] };
    server.reset((req, res) => json(res, 200, req.url === '/v1/status' ? STATUS : readiness));
    await expect(client.auth.status()).resolves.toEqual({ status: STATUS, readiness });
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/status', '/v1/model-auth/readiness']);

    server.reset((_req, res) => json(res, 200, { ...STATUS, status: 'starting' }));
    await expect(client.auth.status()).resolves.toMatchObject({ readiness: null });
    expect(server.requests).toHaveLength(1);
  });

  it('bash.run posts its body and returns a non-zero exit as a value', async () => {
    const result = {
      exit_code: 3,
      signal: null,
      stdout: '',
      stderr: 'x',
      truncated: false,
      duration_ms: 2,
    };
    server.reset((_req, res) => json(res, 200, result));
    const params = { command: 'exit 3', cwd: '/tmp', timeout_ms: 1000, env: { A: 'b' } };
    await expect(client.bash.run(params)).resolves.toEqual(result);
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/bash' });
    expect(JSON.parse(server.requests[0]!.body)).toEqual(params);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    // A bound the daemon refuses is sent for its 422, not turned into a TypeError about a
    // `timeout` option the caller never gave.
    server.reset((_req, res) => json(res, 422, envelope('validation_failed', 'too big')));
    const big = client.bash.run({ command: 'true', cwd: '/tmp', timeout_ms: 1e12 });
    await expect(big).rejects.toMatchObject({ status: 422 });
  });

  it('bash.run throws a TypeError for a missing command or cwd, sending nothing', () => {
    server.reset((_req, res) => json(res, 200, {}));
    expect(() => client.bash.run({ command: 'ls' } as never)).toThrow(
      /params\.cwd must be a string/,
    );
    expect(() => client.bash.run({ cwd: '/' } as never)).toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('client.request', () => {
  it('reaches any route with the same auth, retries and errors', async () => {
    server.reset((req, res, i) =>
      i === 0
        ? json(res, 503, envelope('not_ready', 'wait'), { 'retry-after-ms': '10' })
        : json(res, 200, { method: req.method, url: req.url, body: JSON.parse(req.body) }),
    );
    await expect(client.request('post', '/v1/focuses?x=1', { a: 1 })).resolves.toEqual({
      method: 'POST',
      url: '/v1/focuses?x=1',
      body: { a: 1 },
    });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers.authorization).toBe('Bearer svc_owner_secret');

    server.reset((_req, res) => json(res, 404, envelope('not_found', 'no route')));
    await expect(client.request('GET', '/v1/nope')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('exposes the response and request id via withResponse() and asResponse()', async () => {
    server.reset((_req, res) => json(res, 200, { ok: true }, { 'svc-request-id': 'req_1' }));
    const { data, response, requestId } = await client.request('GET', '/healthz').withResponse();
    expect(data).toEqual({ ok: true });
    expect(response.status).toBe(200);
    expect(requestId).toBe('req_1');

    const raw = await client.system.health().asResponse();
    expect(await raw.json()).toEqual({ ok: true });

    server.reset((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(client.request('DELETE', '/v1/things/1')).resolves.toBeNull();
  });
});

describe('as the Stainless SDKs have it', () => {
  const echo = () =>
    server.reset((req, res) =>
      json(res, 200, {
        method: req.method,
        url: req.url,
        body: req.body === '' ? null : JSON.parse(req.body),
      }),
    );

  it('request takes one object too; get, post, put, patch and delete take path and options', async () => {
    echo();
    await expect(
      client.request({ method: 'post', path: '/v1/focuses', query: { x: 1 }, body: { a: 1 } }),
    ).resolves.toEqual({ method: 'POST', url: '/v1/focuses?x=1', body: { a: 1 } });
    await expect(client.get('/v1/status', { query: { a: 'b' } })).resolves.toMatchObject({
      method: 'GET',
      url: '/v1/status?a=b',
    });
    for (const verb of ['post', 'put', 'patch', 'delete'] as const) {
      const answer = await client[verb]('/v1/x', verb === 'delete' ? {} : { body: { v: verb } });
      expect(answer).toMatchObject({ method: verb.toUpperCase(), url: '/v1/x' });
    }
    expect(() => client.request({ method: 7 as never, path: '/v1/x' })).toThrow(/request\.method/);
  });

  it('idempotencyKey sets the Idempotency-Key of a call and all its retries', async () => {
    server.reset((_req, res, i) =>
      i === 0
        ? json(res, 503, envelope('not_ready', 'wait'), { 'retry-after-ms': '1' })
        : json(res, 200, {}),
    );
    await client.request('POST', '/v1/nodes', { task: 't' }, { idempotencyKey: 'mine-1' });
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1']);
    expect(() => client.request('POST', '/v1/nodes', {}, { idempotencyKey: '' })).toThrow(
      /options\.idempotencyKey/,
    );
  });

  it('a path holding a query takes a query option too; a null Idempotency-Key sends none', async () => {
    echo();
    await expect(client.get('/v1/x?a=1', { query: { b: 2 } })).resolves.toMatchObject({
      url: '/v1/x?a=1&b=2',
    });
    await client.post('/v1/x', { body: {}, headers: { 'Idempotency-Key': null } });
    expect(server.requests.at(-1)?.headers['idempotency-key']).toBeUndefined();
    await client.post('/v1/x', { body: {} });
    expect(server.requests.at(-1)?.headers['idempotency-key']).toMatch(/^svc-retry-/);
  });

  it('a method that is no HTTP token is a TypeError, sending nothing', () => {
    const before = server.requests.length;
    expect(() => client.request('GET\r\nX: y', '/v1/e')).toThrow(
      /method must be an HTTP method token/,
    );
    expect(server.requests.length).toBe(before);
  });

  it('an answer labelled JSON that is none is an APIError invalid_response, no bare SyntaxError', async () => {
    server.reset((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
    });
    const error = await client.get('/v1/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('an APIError has requestID as well as requestId', async () => {
    server.reset((_req, res) =>
      json(res, 404, envelope('not_found', 'no'), { 'svc-request-id': 'r-9' }),
    );
    const error = (await client.request('GET', '/v1/x').catch((e: unknown) => e)) as APIError;
    expect(error.requestId).toBe('req_test'); // the envelope's, which wins over the header
    expect(error.requestID).toBe(error.requestId);
  });

  it('a list is awaited as its first page, and iterated item by item over every page', async () => {
    const pages: Record<
      string,
      { data: { id: string }[]; has_more: boolean; next_cursor: string | null }
    > = {
      '': { data: [{ id: 'a' }, { id: 'b' }], has_more: true, next_cursor: 'b' },
      b: { data: [{ id: 'c' }], has_more: true, next_cursor: 'c' },
      c: { data: [], has_more: false, next_cursor: null },
    };
    server.reset((req, res) => {
      const after = new URL(req.url, 'http://x').searchParams.get('after') ?? '';
      json(res, 200, pages[after]);
    });
    const first = await client.crons.list({ limit: 2 });
    expect(first.data.map((c) => c.id)).toEqual(['a', 'b']);
    const ids: string[] = [];
    for await (const cron of client.crons.list({ limit: 2 })) ids.push(cron.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    const asked = server.requests.slice(1).map((r) => new URL(r.url, 'http://x').search);
    expect(asked).toEqual(['?limit=2', '?limit=2&after=b', '?limit=2&after=c']);
  });
});

describe('identifier checks in paths', () => {
  const NODE = 'nd_01JABCDEFGHJKMNPQRSTVWXYZ0';

  it("fills a route's path from the protocol table with checked ids and names", () => {
    const jobs = pathOf('nodes.jobs.list', { id: id('node', NODE, 'nodeId') });
    expect(jobs).toBe(`/v1/nodes/${NODE}/jobs`);
    const profile = pathOf('profiles.retrieve', { name: name('profile', 'work-1', 'profile') });
    expect(profile).toBe('/v1/profiles/work-1');
    expect(pathOf('crons.list')).toBe('/v1/crons');
    const job = 'job_01JABCDEFGHJKMNPQRSTVWXYZ0';
    expect(
      pathOf('nodes.jobs.cancel', {
        id: id('node', NODE, 'nodeId'),
        job_id: id('job', job, 'jobId'),
      }),
    ).toBe(`/v1/nodes/${NODE}/jobs/${job}/cancel`);
  });

  it('percent-encodes each parameter as one segment', () => {
    // A provider name allows no slash; the encoding is the last guard should a check ever widen.
    const checked = name('provider', 'openai', 'provider');
    const sneaky = { ...checked };
    for (const key of Object.getOwnPropertySymbols(checked)) {
      (sneaky as Record<symbol, string>)[key] = 'a/b?c';
    }
    expect(pathOf('models.credentials.remove', { provider: sneaky })).toBe(
      '/v1/model-auth/a%2Fb%3Fc',
    );
  });

  it('throws a TypeError naming the argument for a malformed id or name', () => {
    expect(() => id('node', 'cron_01JABCDEFGHJKMNPQRSTVWXYZ0', 'nodeId')).toThrow(TypeError);
    expect(() => id('node', '../etc', 'nodeId')).toThrow(/nodeId must be a node id/);
    expect(() => id('cron', undefined, 'cronId')).toThrow(/cronId/);
    expect(() => name('provider', 'Bad Name', 'provider')).toThrow(
      /provider must be a provider name/,
    );
  });

  it('refuses an unchecked or missing parameter', () => {
    expect(() => pathOf('nodes.retrieve', { id: 'nd_x' as never })).toThrow(
      /parameter 'id' of nodes.retrieve must be checked with id\(\) or name\(\)/,
    );
    expect(() => pathOf('nodes.retrieve', {} as never)).toThrow(/parameter 'id'/);
    // @ts-expect-error: the route's path has an `{id}` to fill
    expect(() => pathOf('crons.pause')).toThrow(/parameter 'id' of crons.pause/);
    // @ts-expect-error: no such route in the table
    expect(() => pathOf('crons.nope')).toThrow(/unknown route id 'crons.nope'/);
  });
});
