import { connect } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { type RouteDef, routes as table } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  daemonLog,
  envelope,
  json,
  rawRequest,
  startTestDaemon,
  type TestDaemon,
} from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

// Widened to RouteDef so optional parts (body, query, params) can be tested for. Node-token
// routes are refused (403) before their input is read; their own tests cover their input.
const routes: readonly RouteDef[] = table.filter((r: RouteDef) => r.auth.kind !== 'node');
/** Well-formed ids; each path parameter takes the first its schema accepts. */
const SAMPLE_IDS = [
  'tok_',
  'nd_',
  'run_',
  'job_',
  'hr_',
  'tk_',
  'cron_',
  'obj_',
  'dlv_',
  'shr_',
  'upl_',
  'q_',
].map((p) => `${p}01ARZ3NDEKTSV4RRFFQ69G5FAV`);
/** A well-formed value of each path parameter that is not an id. */
const SAMPLES: Readonly<Record<string, string>> = {
  name: 'sample',
  provider: 'anthropic',
  var: 'SAMPLE',
};
const sampleOf = (route: RouteDef, param: string): string =>
  SAMPLES[param] ??
  SAMPLE_IDS.find((id) => route.params?.shape[param]?.safeParse(id).success) ??
  SAMPLE_IDS[0]!;
const pathOf = (route: RouteDef) =>
  route.path.replace(/\{(\w+)\}/g, (_, param: string) => sampleOf(route, param));

describe('bad input on every route answers an envelope, never a 5xx', () => {
  const withBody = routes.filter((r) => r.body !== undefined);
  // Not the attachment link's content route: a link's parts are a credential, so any fault in
  // them is the same 404 as a forged signature, never a 422 naming the part (uploads.test.ts).
  const withQuery = routes.filter((r) => r.query !== undefined && r.id !== 'attachments.content');
  /** A valid value for each required query field (`files.read`'s and `files.list`'s path). */
  const VALID_QUERY: Record<string, string> = {
    path: '/',
    q: 'word',
    pattern: 'word',
    node_id: SAMPLE_IDS[1]!,
    upload_id: SAMPLE_IDS[10]!,
    filename: 'notes.txt',
  };
  /** Where a route's required field takes other values than `VALID_QUERY`'s. */
  const VALID_QUERY_OF: Record<string, Record<string, string>> = {
    'memory.delete': { path: 'notes.md' },
  };
  const withParams = routes.filter((r) => r.params !== undefined);

  it.each(withBody.map((r) => [r.id, r] as const))(
    '%s: malformed JSON, or no JSON at all whatever its Content-Type → 400',
    async (_id, route) => {
      const cases: [string, string][] = [
        ['{"oops', 'application/json'],
        ['a=1', 'application/x-www-form-urlencoded'],
      ];
      for (const [body, type] of cases) {
        const res = await t.call(pathOf(route), {
          method: route.method,
          body,
          headers: { 'content-type': type },
        });
        expect(res.status, type).toBe(400);
        expect((await envelope(res)).code).toBe('invalid_request');
      }
    },
  );

  it.each(withBody.map((r) => [r.id, r] as const))(
    '%s: JSON is read as JSON without a Content-Type or labelled text/plain',
    async (_id, route) => {
      for (const headers of [{}, { 'content-type': 'text/plain;charset=UTF-8' }]) {
        // an unknown key: the body was parsed, so the schema, not the label, refuses it
        const res = await t.call(pathOf(route), {
          method: route.method,
          body: '{"__unknown__":true}',
          headers,
        });
        expect(res.status).toBe(422);
        expect((await envelope(res)).code).toBe('validation_failed');
      }
    },
  );

  it.each(withBody.map((r) => [r.id, r] as const))(
    '%s: wrong shape → 422 naming the field',
    async (_id, route) => {
      for (const body of [[], 'text', 42, null, { __unknown__: true }]) {
        const res = await t.call(pathOf(route), json(body, route.method));
        expect(res.status, JSON.stringify(body)).toBe(422);
        const error = await envelope(res);
        expect(error.code).toBe('validation_failed');
        expect(error.message).toMatch(/^invalid request body: /);
      }
      const unknown = await envelope(
        await t.call(pathOf(route), json({ __unknown__: true }, route.method)),
      );
      expect(unknown.field).toEqual(expect.any(String));
      expect(unknown.message).toContain('__unknown__');
    },
  );

  it.each(withBody.map((r) => [r.id, r] as const))(
    '%s: JSON nested past what SQLite stores → 400, before the schema or any insert',
    async (_id, route) => {
      // valid JSON, well under 2 MiB; a node's output_schema this deep once failed its insert
      const deep = `{"a":${'['.repeat(1_500)}${']'.repeat(1_500)}}`;
      const res = await t.call(pathOf(route), {
        method: route.method,
        body: deep,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      const error = await envelope(res);
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('nests deeper than 990');
    },
  );

  it('a query escape that is not UTF-8 → 400, never read as U+FFFD', async () => {
    for (const query of ['path=victim-%FF.md', 'path=%ED%A0%80', 'path=%E0%A4%A']) {
      const res = await t.call(`/v1/memory/document?${query}`, { method: 'DELETE' });
      expect(res.status, query).toBe(400);
      expect(await envelope(res)).toMatchObject({ code: 'invalid_request' });
    }
  });

  it.each(withBody.map((r) => [r.id, r] as const))(
    '%s: a lone surrogate → 400, before the schema (SQLite would store U+FFFD instead)',
    async (_id, route) => {
      for (const body of ['{"a":"x\\ud800"}', '{"\\udc00":1}']) {
        const res = await t.call(pathOf(route), {
          method: route.method,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status, body).toBe(400);
        expect((await envelope(res)).message).toContain('lone surrogate');
      }
    },
  );

  it.each(withQuery.map((r) => [r.id, r] as const))('%s: bad query → 422', async (_id, route) => {
    const shape = route.query!.shape as Record<
      string,
      { safeParse(v: unknown): { success: boolean } }
    >;
    const keys = Object.keys(shape);
    // The other required fields get a valid value, so the answer is about the field under test.
    const required = keys.filter((k) => !shape[k]!.safeParse(undefined).success);
    for (const key of keys) {
      const rest = required
        .filter((k) => k !== key)
        .map((k) => {
          const valid = VALID_QUERY_OF[route.id]?.[k] ?? VALID_QUERY[k] ?? '';
          return `&${k}=${encodeURIComponent(valid)}`;
        })
        .join('');
      const res = await t.call(`${pathOf(route)}?${key}=${'x'.repeat(5000)}${rest}`, {
        method: route.method,
      });
      expect(res.status, key).toBe(422);
      expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field: key });
    }
  });

  it.each(withParams.map((r) => [r.id, r] as const))(
    '%s: bad path parameter → 422',
    async (_id, route) => {
      for (const bad of ['NOPE', 'tok_short', 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', '%E0%A4%A']) {
        const res = await t.call(route.path.replace(/\{\w+\}/g, bad), { method: route.method });
        expect(res.status, bad).toBeGreaterThanOrEqual(400);
        expect(res.status, bad).toBeLessThan(500);
        await envelope(res);
      }
    },
  );

  it.each(routes.filter((r) => r.id !== 'shutdown.create').map((r) => [r.id, r] as const))(
    '%s: garbage never gets a 5xx',
    async (_id, route) => {
      const garbage = [
        '\u0000\uffff',
        '{"a":'.repeat(1000),
        JSON.stringify({ command: 1, cwd: {}, scopes: 'x' }),
      ];
      for (const body of garbage) {
        const hasBody = route.method !== 'GET';
        const res = await t.call(`${pathOf(route)}?after=%FF&limit=-1&kinds=,,`, {
          method: route.method,
          ...(hasBody && { body, headers: { 'content-type': 'application/json' } }),
        });
        expect(res.status).toBeLessThan(500);
        await res.body?.cancel();
      }
    },
  );
});

describe('unknown routes, wrong methods, size limit', () => {
  it('unknown path → 404 envelope', async () => {
    for (const path of ['/v1/nope', '/', '/v1/tokens/a/b', '/v1/status/']) {
      const res = await t.call(path);
      expect(res.status, path).toBe(404);
      expect((await envelope(res)).code).toBe('not_found');
    }
  });

  it("an answer's Content-Length counts UTF-8 bytes, not characters", async () => {
    // The 404 message quotes the decoded path: two characters of it take two bytes each.
    const res = await rawRequest(
      { socketPath: t.daemon.socketPath },
      { path: '/v1/caf%C3%A9/%C3%BC' },
    );
    expect(res.status).toBe(404);
    expect(res.body).toContain('/v1/café/ü');
    // A length in characters would cut the last bytes off and leave JSON that does not parse.
    expect(JSON.parse(res.body).error.code).toBe('not_found');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(Number(res.headers['content-length'])).toBeGreaterThan(res.body.length);
  });

  it('wrong method → 405 with Allow', async () => {
    const res = await t.call('/v1/status', { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect((await envelope(res)).code).toBe('method_not_allowed');
    const del = await t.call('/v1/connect', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('POST');
  });

  it('a body over 2 MiB → 413, by Content-Length and while reading a chunked body', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
    const declared = await t.call('/v1/bash', {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(declared.status).toBe(413);
    // The rest of a refused body must never be parsed as a next request on the connection.
    expect(declared.headers.get('connection')).toBe('close');
    expect((await envelope(declared)).code).toBe('payload_too_large');

    const chunked = await t.call('/v1/bash', {
      method: 'POST',
      duplex: 'half',
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new Uint8Array(100 * 1024).fill(0x20));
          controller.close();
        },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(chunked.status).toBe(413);

    const justUnder = Buffer.concat([
      Buffer.from('{"command":"true","cwd":"/"}'),
      Buffer.alloc(2 * 1024 * 1024 - 40, 0x20),
    ]);
    const ok = await t.call('/v1/bash', {
      method: 'POST',
      body: justUnder,
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(200);
  });

  it('a request without a valid Host on the socket still gets an envelope', async () => {
    const res = await rawRequest(
      { socketPath: t.daemon.socketPath },
      { path: '/v1/status', headers: { Host: 'a b' } },
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe('a bug answers 500 internal_error without internals', () => {
  it('and the failed write leaves no half state behind', async () => {
    const broken = await startTestDaemon();
    try {
      const before = (await (await broken.call('/v1/tokens')).json()) as { data: unknown[] };
      // Sabotage the schema under the running daemon: the next event insert fails.
      const db = new DatabaseSync(`${broken.home}/svc.db`);
      db.exec('DROP TABLE events');
      db.close();
      const res = await broken.call('/v1/connect', json({ app_id: 'x', scopes: [] }));
      expect(res.status).toBe(500);
      const error = await envelope(res);
      expect(error.code).toBe('internal_error');
      expect(error.message).not.toMatch(/events|table|sqlite/i);
      const after = (await (await broken.call('/v1/tokens')).json()) as { data: unknown[] };
      expect(after.data).toHaveLength(before.data.length);
    } finally {
      await broken.stop();
    }
  });
});

describe('a client gone mid-body', () => {
  it('is refused as a body that ended early, not logged as a bug', async () => {
    const gone = await startTestDaemon();
    try {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(gone.daemon.socketPath, () => {
          socket.write(
            'POST /v1/connect HTTP/1.1\r\nHost: localhost\r\n' +
              `Authorization: Bearer ${gone.ownerToken}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"app_id":',
          );
          // Once the daemon reads the body, leave without the rest.
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      const log = await daemonLog(gone.home);
      expect(log).not.toContain('unhandled error');
      // The daemon still answers.
      expect((await gone.call('/v1/status')).status).toBe(200);
    } finally {
      await gone.stop();
    }
  });
});

describe('what a refused body holds stays out of answers and the log', () => {
  const SECRET = 'sk-ant-SECRETKEY123';

  it('a malformed body is named by position, never quoted', async () => {
    for (const body of [`{"api_key": ${SECRET}}`, `{"api_key": "${SECRET}",}`]) {
      const res = await t.call('/v1/model-auth/anthropic', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      const error = await envelope(res);
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/^request body is not valid JSON/);
      expect(JSON.stringify(error)).not.toContain('sk-ant');
    }
  });

  it('a NUL in what becomes a process argument, environment or header → 422, not 500', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['/v1/bash', 'POST', { command: `echo ${SECRET}\0`, cwd: '/tmp' }, 'command'],
      ['/v1/bash', 'POST', { command: 'true', cwd: '/tmp', env: { A: `${SECRET}\0` } }, 'env.A'],
      ['/v1/profiles/default/env/ACME_TOKEN', 'PUT', { value: `${SECRET}\0` }, 'value'],
      ['/v1/model-auth/anthropic', 'POST', { api_key: `${SECRET}\0` }, 'api_key'],
    ];
    for (const [path, method, body, field] of cases) {
      const res = await t.call(path, json(body, method));
      expect(res.status, path).toBe(422);
      const error = await envelope(res);
      expect(error).toMatchObject({ code: 'validation_failed', field });
      expect(JSON.stringify(error)).not.toContain(SECRET);
    }
    expect(await daemonLog(t.home)).not.toContain(SECRET);
  });
});
