import { routeById, routes } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonContext } from '../src/context.ts';
import { createApp } from '../src/http/app.ts';
import { startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

/** `METHOD /path/{param}` of every handler the app registers. */
function servedRoutes(): string[] {
  // Registration only wires handlers; no dependency is called until a request arrives.
  const app = createApp({
    home: '/nonexistent',
    store: { idempotency: {} },
    tokens: {},
  } as unknown as DaemonContext);
  return [...app.routes.keys()]
    .map((id) => routeById(id))
    .map((r) => `${r.method} ${r.path}`)
    .sort();
}

describe('GET /v1/openapi.json', () => {
  it('documents exactly the routes the app serves, which are exactly the protocol table', async () => {
    const res = await t.call('/v1/openapi.json', { token: null });
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toMatch(/^3\.1\./);
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    const served = servedRoutes();
    expect(served).toEqual(documented);
    expect(served).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    expect(new Set(served).size).toBe(served.length);
  });
});
