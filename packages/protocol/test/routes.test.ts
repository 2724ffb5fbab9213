import { describe, expect, it } from 'vitest';
import {
  bashBodySchema,
  buildOpenApiDocument,
  connectBodySchema,
  eventsQuerySchema,
  filesListQuerySchema,
  filesReadQuerySchema,
  filesWriteBodySchema,
  findRoute,
  listQuerySchema,
  newId,
  nodeRoutes,
  type RouteDef,
  routeById,
  routes,
} from '../src/index.ts';

/** The routes of docs/api-v1.md; the groups of docs/nodes.md (`nodeRoutes`) come on top. */
const CORE_ROUTES = [
  'attachments.content',
  'attachments.link',
  'bash.run',
  'canvas.attention',
  'canvas.attentionCounts',
  'canvas.history.grep',
  'canvas.history.read',
  'canvas.history.search',
  'canvas.history.stats',
  'canvas.prune',
  'canvas.roster',
  'canvas.snapshot',
  'connect.create',
  'crons.create',
  'crons.delete',
  'crons.list',
  'crons.pause',
  'crons.poke',
  'crons.resume',
  'crons.retrieve',
  'crons.run',
  'customObjects.ack',
  'customObjects.list',
  'customObjects.publish',
  'customObjects.receive',
  'customObjects.register',
  'customObjects.retrieve',
  'customObjects.unregister',
  'directory.jwks.get',
  'directory.keys.list',
  'directory.keys.rotate',
  'events.stream',
  'files.list',
  'files.read',
  'files.write',
  'focuses.delete',
  'focuses.list',
  'focuses.retrieve',
  'focuses.set',
  'grant.get',
  'health.get',
  'healthz.get',
  'human.inbox.cancel',
  'human.inbox.history',
  'human.inbox.list',
  'human.inbox.progress',
  'human.inbox.respond',
  'human.inbox.response',
  'human.inbox.retrieve',
  'human.requests.cancel',
  'human.requests.create',
  'human.requests.dismiss',
  'human.requests.replace',
  'human.requests.respond',
  'human.requests.retrieve',
  'memory.delete',
  'memory.get',
  'memory.list',
  'memory.write',
  'openapi.get',
  'plugins.install',
  'plugins.list',
  'plugins.remove',
  'plugins.retrieve',
  'providers.call',
  'providers.tools',
  'questions.answer',
  'questions.get',
  'readiness.get',
  'shares.create',
  'shares.delete',
  'shares.list',
  'shutdown.create',
  'status.get',
  'tokens.list',
  'tokens.revoke',
  'uploads.create',
  'uploads.createRaw',
  'uploads.delete',
  'uploads.retrieve',
  'viewer.links.create',
  'viewer.logout',
];

describe('route table', () => {
  it('holds the routes of docs/api-v1.md and of every node group, with unique ids and method+path pairs', () => {
    const groupIds = new Set<string>(nodeRoutes.map((r) => r.id));
    const ids = routes.map((r) => r.id);
    expect(ids.filter((id) => !groupIds.has(id)).sort()).toEqual(CORE_ROUTES);
    expect([...ids].sort()).toEqual([...CORE_ROUTES, ...groupIds].sort());
    expect(new Set(ids).size).toBe(routes.length);
    expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
  });

  it('gates each route as the doc says', () => {
    expect(routeById('healthz.get').auth).toEqual({ kind: 'public' });
    expect(routeById('directory.jwks.get').auth).toEqual({ kind: 'public' });
    expect(routeById('openapi.get').auth).toEqual({ kind: 'public' });
    expect(routeById('status.get').auth).toEqual({ kind: 'token' });
    expect(routeById('tokens.revoke').auth).toEqual({ kind: 'owner' });
    for (const id of [
      'directory.keys.list',
      'directory.keys.rotate',
      'plugins.install',
      'plugins.list',
      'plugins.retrieve',
      'plugins.remove',
      'viewer.links.create',
      'viewer.logout',
    ] as const) {
      expect(routeById(id).auth).toEqual({ kind: 'owner' });
    }
    expect(routeById('providers.tools').auth).toEqual({ kind: 'token' });
    expect(routeById('providers.call').auth).toEqual({ kind: 'token' });
    expect(routeById('events.stream').stream).toBe('sse');
    expect(routeById('bash.run').auth).toEqual({ kind: 'scope', scope: 'svc:act' });
    for (const id of ['files.read', 'files.write', 'files.list'] as const) {
      expect(routeById(id).auth).toEqual({ kind: 'scope', scope: 'svc:act' });
    }
    expect(findRoute('GET', '/v1/files/peek')).toMatchObject({ route: { id: 'files.read' } });
  });
});

describe('findRoute', () => {
  it('matches a path and decodes its parameters', () => {
    const id = newId('token');
    const m = findRoute('DELETE', `/v1/tokens/${id}`);
    expect(m).toMatchObject({ route: { id: 'tokens.revoke' }, params: { id } });
    expect(findRoute('DELETE', '/v1/tokens/a%2Fb')).toMatchObject({ params: { id: 'a/b' } });
    expect(findRoute('get', '/v1/status')).toMatchObject({ route: { id: 'status.get' } });
  });

  it('answers { allowed } for a known path with another method (405), null for an unknown path (404)', () => {
    expect(findRoute('POST', '/v1/status')).toEqual({ allowed: ['GET', 'HEAD'] });
    expect(findRoute('GET', '/v1/tokens/tok_x')).toEqual({ allowed: ['DELETE'] });
    expect(findRoute('GET', '/v1/bash')).toEqual({ allowed: ['POST'] });
    expect(findRoute('GET', '/v1/nope')).toBeNull();
    expect(findRoute('GET', '/v1/status/')).toBeNull();
    expect(findRoute('GET', '/v1/tokens/')).toBeNull();
    expect(findRoute('DELETE', '/v1/tokens/a/b')).toBeNull();
    expect(findRoute('GET', 'v1/status')).toBeNull();
    expect(findRoute('DELETE', '/v1/tokens/%E0%A4%A')).toBeNull();
  });

  it('lets HEAD reach a GET route', () => {
    expect(findRoute('HEAD', '/healthz')).toMatchObject({ route: { id: 'healthz.get' } });
  });

  it("takes a path as its most literal template's: /v1/runs/all allows GET only, not /v1/runs/{id}'s DELETE", () => {
    expect(findRoute('OPTIONS', '/v1/runs/all')).toEqual({ allowed: ['GET', 'HEAD'] });
    expect(findRoute('DELETE', '/v1/runs/all')).toEqual({ allowed: ['GET', 'HEAD'] });
    expect(findRoute('GET', '/v1/nodes/parse')).toEqual({ allowed: ['POST'] });
    expect(findRoute('DELETE', `/v1/runs/${newId('run')}`)).toMatchObject({
      route: { id: 'runs.delete' },
    });
  });

  it('never hides a request a less literal template would serve: no parameter takes a literal of the table', () => {
    const segments = (path: string) => path.split('/').slice(1);
    const hidden: string[] = [];
    const table: readonly RouteDef[] = routes;
    for (const literal of table) {
      for (const other of table) {
        const [a, b] = [segments(literal.path), segments(other.path)];
        if (a.length !== b.length || literal.path === other.path) continue;
        const values: Record<string, string> = {};
        const overlaps = a.every((seg, i) => {
          const them = b[i]!;
          if (them.startsWith('{')) {
            if (!seg.startsWith('{')) values[them.slice(1, -1)] = seg;
            return true;
          }
          return seg === them;
        });
        if (!overlaps || Object.keys(values).length === 0) continue;
        const shape = other.params?.shape as Record<
          string,
          { safeParse(v: unknown): { success: boolean } }
        >;
        if (Object.entries(values).every(([k, v]) => shape[k]?.safeParse(v).success)) {
          hidden.push(`${other.method} ${other.path} takes ${literal.path}`);
        }
      }
    }
    expect(hidden).toEqual([]);
  });
});

describe('schemas', () => {
  it('connect body: optional fields, strict (unknown fields refused), bounded', () => {
    expect(connectBodySchema.safeParse({}).success).toBe(true);
    expect(
      connectBodySchema.safeParse({
        app_id: 'mail',
        scopes: ['svc:llm'],
        expires_in_s: 60,
        port: 0,
      }).success,
    ).toBe(true);
    expect(connectBodySchema.safeParse({ scope: ['svc:llm'] }).success).toBe(false);
    expect(connectBodySchema.safeParse({ app_id: 'Mail' }).success).toBe(false);
    expect(connectBodySchema.safeParse({ expires_in_s: 0 }).success).toBe(false);
    expect(connectBodySchema.safeParse({ port: 70000 }).success).toBe(false);
  });

  it('bash body: command and an absolute cwd are required; env names are checked', () => {
    expect(bashBodySchema.safeParse({ command: 'ls', cwd: '/tmp' }).success).toBe(true);
    expect(bashBodySchema.safeParse({ command: 'ls', cwd: 'tmp' }).success).toBe(false);
    expect(bashBodySchema.safeParse({ command: 'ls' }).success).toBe(false);
    expect(bashBodySchema.safeParse({ command: '', cwd: '/' }).success).toBe(false);
    expect(bashBodySchema.safeParse({ command: 'ls', cwd: '/', env: { 'A-B': 'x' } }).success).toBe(
      false,
    );
    expect(bashBodySchema.safeParse({ command: 'ls', cwd: '/', timeout_ms: 1.5 }).success).toBe(
      false,
    );
  });

  it('files: absolute paths only, bounded reads and lists, a strict write body', () => {
    expect(filesReadQuerySchema.parse({ path: '/a', offset: '0', max_bytes: '1048576' })).toEqual({
      path: '/a',
      offset: 0,
      max_bytes: 1_048_576,
    });
    for (const query of [
      { path: 'a' },
      { path: '/a\0b' },
      { path: '/a', max_bytes: '1048577' },
      { path: '/a', max_bytes: '0' },
      { path: '/a', offset: '-1' },
    ]) {
      expect(filesReadQuerySchema.safeParse(query).success).toBe(false);
    }
    expect(filesListQuerySchema.safeParse({ path: '/', limit: '10000' }).success).toBe(true);
    expect(filesListQuerySchema.safeParse({ path: '/', limit: '10001' }).success).toBe(false);
    expect(filesWriteBodySchema.safeParse({ path: '/a', content: '' }).success).toBe(true);
    expect(
      filesWriteBodySchema.safeParse({ path: '/a', content: 'x', encoding: 'hex' }).success,
    ).toBe(false);
    expect(filesWriteBodySchema.safeParse({ path: '/a', content: 'x', mode: 1 }).success).toBe(
      false,
    );
  });

  it('query integers arrive as strings and come out as numbers', () => {
    expect(listQuerySchema.parse({ limit: '20' })).toEqual({ limit: 20 });
    expect(listQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(listQuerySchema.safeParse({ limit: '201' }).success).toBe(false);
    expect(listQuerySchema.safeParse({ limit: 'ten' }).success).toBe(false);
    expect(eventsQuerySchema.parse({ after: '0', kinds: 'token.created,daemon.started' })).toEqual({
      after: 0,
      kinds: 'token.created,daemon.started',
    });
    expect(eventsQuerySchema.safeParse({ kinds: 'a,,b' }).success).toBe(false);
  });
});

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument({ version: '1.2.3' }) as {
    openapi: string;
    info: { version: string; title: string };
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: { securitySchemes: Record<string, unknown>; responses: Record<string, unknown> };
  };

  it('is an OpenAPI 3.1 document with a bearer scheme', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ version: '1.2.3', title: expect.any(String) });
    expect(doc.components.securitySchemes.bearer).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc); // plain JSON, no zod objects left
    expect(JSON.stringify(doc)).not.toContain('"$schema"');
  });

  it('lists every route of the table exactly once, with its operationId', () => {
    const ops: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      for (const [method, op] of Object.entries(item)) {
        const route = routes.find((r) => r.path === path && r.method.toLowerCase() === method);
        expect(route?.id).toBe(op.operationId);
        expect(op.responses).toHaveProperty('200');
        ops.push(String(op.operationId));
      }
    }
    expect(ops.sort()).toEqual(routes.map((r) => r.id).sort());
  });

  it('describes security, parameters, bodies and error answers per route', () => {
    const revoke = doc.paths['/v1/tokens/{id}']?.delete as Record<string, unknown>;
    expect(revoke.security).toEqual([{ bearer: [] }]);
    expect(revoke.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    ]);
    expect(revoke.responses).toHaveProperty(
      '404',
      expect.objectContaining({ $ref: '#/components/responses/Error' }),
    );
    const healthz = doc.paths['/healthz']?.get as Record<string, unknown>;
    expect(healthz.security).toEqual([]);
    expect(healthz.responses).not.toHaveProperty('401');
    const bash = doc.paths['/v1/bash']?.post as Record<string, unknown>;
    expect(bash['x-svc-scope']).toBe('svc:act');
    expect(bash.requestBody).toMatchObject({ required: true, content: { 'application/json': {} } });
    expect(bash.responses).toHaveProperty('422');
    const events = doc.paths['/v1/events']?.get as {
      responses: Record<string, { content: object }>;
    };
    expect(Object.keys(events.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    const tokens = doc.paths['/v1/tokens']?.get as {
      parameters: { name: string; required: boolean }[];
    };
    expect(tokens.parameters.map((p) => [p.name, p.required])).toEqual([
      ['limit', false],
      ['after', false],
    ]);
    expect(doc.components.responses).toHaveProperty('Error');
  });

  it('leaves answer objects open (new fields allowed) and request bodies closed', () => {
    const status = doc.paths['/v1/status']?.get as {
      responses: { 200: { content: { 'application/json': { schema: Record<string, unknown> } } } };
    };
    expect(status.responses[200].content['application/json'].schema).not.toHaveProperty(
      'additionalProperties',
    );
    const bash = doc.paths['/v1/bash']?.post as {
      requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } };
    };
    expect(bash.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
  });
});
