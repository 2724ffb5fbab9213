import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  credentialInstallBodySchema,
  findRoute,
  newId,
  nodeRouteById,
  nodeRoutes,
  type RouteDef,
  routes,
} from '../src/index.ts';

const all: readonly RouteDef[] = nodeRoutes;

// The spec's resource map rows this stage serves, as namespace.method.
const SPEC_METHODS = [
  ...[
    'create',
    'retrieve',
    'list',
    'update',
    'cancel',
    'interrupt',
    'message',
    'outcome',
    'waitForOutcome',
    'createAndWait',
    'parse',
    'stream',
    'events',
    'fork',
    'revive',
    'reviveAll',
    'promote',
    'demote',
    'recycle',
    'yield',
    'wait',
    'relaunchRoot',
  ].map((m) => `nodes.${m}`),
  'nodes.reports.list',
  'nodes.jobs.list',
  'nodes.jobs.cancel',
  'nodes.result.submit',
  'nodes.worktree.close',
  'nodes.worktree.abandon',
  'profiles.ensure',
  'profiles.retrieve',
  'models.credentials.list',
  'models.credentials.install',
  'models.credentials.remove',
  'models.config.update',
  ...[
    'start',
    'get',
    'list',
    'listAll',
    'message',
    'interrupt',
    'cancel',
    'delete',
    'rename',
    'trace',
    'events',
    'reply',
    'stream',
    'wait',
    'parse',
  ].map((m) => `runs.${m}`),
];

const SAMPLE: Record<string, string> = {
  id: '',
  job_id: newId('job'),
  name: 'default',
  var: 'GITHUB_TOKEN',
  provider: 'openai',
};

function samplePath(route: RouteDef): string {
  const id = route.path.startsWith('/v1/runs') ? newId('run') : newId('node');
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'id' ? id : (SAMPLE[name] ?? ''),
  );
}

/** The names of every property that is not a boolean or a number (so could carry a secret). */
function stringProperties(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const s of schema) stringProperties(s, out);
  else if (typeof schema === 'object' && schema !== null) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && typeof v === 'object' && v !== null) {
        for (const [name, prop] of Object.entries(v)) {
          const type = (prop as { type?: unknown }).type;
          if (type !== 'boolean' && type !== 'integer' && type !== 'number') out.push(name);
        }
      }
      stringProperties(v, out);
    }
  }
  return out;
}

const SECRET_NAME = /(^|_)(api_key|key|secret|password|token|value)$/;

describe('nodeRoutes', () => {
  it('serves every method of the spec rows, with unique ids and method+path pairs', () => {
    const ids = all.map((r) => r.id);
    for (const m of SPEC_METHODS) expect(ids).toContain(m);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(all.map((r) => `${r.method} ${r.path}`)).size).toBe(all.length);
  });

  it('is merged into routes: each route exactly once, sharing no id or method+path with another', () => {
    for (const r of all) {
      expect(
        routes.filter((other) => other === r),
        r.id,
      ).toHaveLength(1);
      expect(
        routes.filter((other) => other.id === r.id),
        r.id,
      ).toHaveLength(1);
      const pair = `${r.method} ${r.path}`;
      expect(
        routes.filter((other) => `${other.method} ${other.path}` === pair),
        pair,
      ).toHaveLength(1);
    }
    // auth.status keeps using the existing readiness route
    expect(routes.find((r) => r.path === '/v1/model-auth/readiness')?.method).toBe('GET');
  });

  it('resolves a concrete path of each route to that route within the whole table', () => {
    for (const route of all) {
      const match = findRoute(route.method, samplePath(route));
      expect(match !== null && 'route' in match ? match.route.id : match, route.id).toBe(route.id);
    }
  });

  it('declares exactly the path parameters its template names, and they parse', () => {
    for (const route of all) {
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(route.params?.shape ?? {}).sort()).toEqual([...names].sort());
      if (route.params !== undefined) {
        const path = samplePath(route).split('/');
        const values = Object.fromEntries(
          route.path
            .split('/')
            .map((s, i) => [s.slice(1, -1), path[i]] as const)
            .filter((_, i) => route.path.split('/')[i]?.startsWith('{')),
        );
        expect(route.params.safeParse(values).success, route.id).toBe(true);
      }
    }
  });

  it('puts bodies only on writes and streams only on GET', () => {
    for (const route of all) {
      if (route.method === 'GET' || route.method === 'DELETE')
        expect(route.body, route.id).toBeUndefined();
      if (route.stream === 'sse') expect(route.method).toBe('GET');
    }
    expect(all.filter((r) => r.stream === 'sse').map((r) => r.id)).toEqual([
      'nodes.stream',
      'runs.stream',
    ]);
  });

  it('gates each route as docs/nodes.md says', () => {
    const auth = (id: Parameters<typeof nodeRouteById>[0]) => nodeRouteById(id).auth;
    const act = { kind: 'scope', scope: 'svc:act' };
    const llm = { kind: 'scope', scope: 'svc:llm' };
    for (const id of [
      'nodes.create',
      'nodes.fork',
      'nodes.revive',
      'nodes.cancel',
      'nodes.message',
      'nodes.createAndWait',
      'nodes.parse',
    ] as const) {
      expect(auth(id)).toEqual(act);
    }
    expect(auth('llm.create')).toEqual(llm);
    expect(auth('runs.start')).toEqual(llm);
    expect(auth('runs.parse')).toEqual(llm);
    expect(auth('runs.listAll')).toEqual({ kind: 'owner' });
    expect(auth('nodes.reviveAll')).toEqual({ kind: 'owner' });
    expect(auth('nodes.attach')).toEqual({ kind: 'owner' });
    for (const r of all.filter((r) => r.id.startsWith('models.credentials.'))) {
      expect(r.auth).toEqual({ kind: 'owner' });
    }
    expect(auth('models.config.update')).toEqual({ kind: 'owner' });
    expect(auth('profiles.env.set')).toEqual({ kind: 'owner' });
    // the broker's control plane and what a node does to itself take its own node token only
    for (const r of all.filter((r) => r.id.startsWith('broker.') || r.path.includes('/mail/'))) {
      expect(r.auth, r.id).toEqual({ kind: 'node' });
    }
    expect(auth('nodes.yield')).toEqual({ kind: 'node' });
    expect(auth('nodes.wait')).toEqual({ kind: 'node' });
  });

  it('names ids <namespace>.<method> under their path families', () => {
    for (const r of all) {
      expect(r.id).toMatch(/^[a-z][a-zA-Z]*(\.[a-z][a-zA-Z]*)+$/);
      const family = r.id.split('.')[0];
      const prefix = {
        nodes: '/v1/nodes',
        broker: '/v1/nodes/{id}/broker/',
        runs: '/v1/runs',
        profiles: '/v1/profiles',
        models: '/v1/model-',
        llm: '/v1/llm',
      }[family ?? ''];
      expect(prefix, r.id).toBeDefined();
      expect(r.path.startsWith(prefix ?? '?'), r.id).toBe(true);
    }
  });

  it('is written down in docs/nodes.md, route by route', () => {
    const doc = readFileSync(new URL('../../../docs/nodes.md', import.meta.url), 'utf8');
    for (const r of all) expect(doc, r.id).toContain(`\`${r.method} ${r.path}\``);
  });

  it('converts every schema to JSON Schema without references (OpenAPI-ready)', () => {
    for (const r of all) {
      const parts: [z.ZodType | undefined, 'input' | 'output'][] = [
        [r.params, 'input'],
        [r.query, 'input'],
        [r.body, 'input'],
        [r.response, 'output'],
      ];
      for (const [schema, io] of parts) {
        if (schema === undefined) continue;
        const json = JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: 'any' }));
        expect(json, r.id).not.toContain('$ref');
      }
    }
  });

  it('never answers a secret: no response field is named like one', () => {
    const names = (s: z.ZodType) =>
      stringProperties(z.toJSONSchema(s, { io: 'output', unrepresentable: 'any' })).filter((n) =>
        SECRET_NAME.test(n),
      );
    // the check finds what it looks for
    expect(names(credentialInstallBodySchema)).toEqual(['api_key']);
    // The one exception, on purpose: a node's own broker asks for a short-lived token (5 min) to
    // call one directory-mode plugin group, and only its node token may ask.
    const minted = new Set(['broker.pluginToken.mint']);
    for (const r of all) {
      expect(names(r.response), r.id).toEqual(minted.has(r.id) ? ['token'] : []);
    }
    expect(all.find((r) => r.id === 'broker.pluginToken.mint')?.auth).toEqual({ kind: 'node' });
  });
});
