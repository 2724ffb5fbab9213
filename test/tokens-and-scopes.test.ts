/**
 * `svc sys connect` (owner and app tokens), local and daemon-side scope validation, and an app
 * token used through `@svc/client` over TCP: denied an owner route, denied a scope it lacks,
 * refused once revoked.
 */
import { AuthenticationError, PermissionDeniedError, Svc } from '@svc/client';
import type { Connection } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupHome, oneErrorLine, svc, svcJson, tempHome } from './support/cli.ts';

const home = tempHome();
beforeAll(async () => {
  const started = await svc(home, ['daemon', 'start']);
  if (started.code !== 0) throw new Error(started.stderr);
});
afterAll(() => cleanupHome(home));

describe('svc sys connect', () => {
  it('answers base_url and the owner token, turning the TCP listener on', async () => {
    const owner = await svcJson<Connection>(home, ['sys', 'connect']);
    expect(owner.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(owner.token).toMatch(/^svc_owner_/);
    expect(owner.scopes).toBeNull();
    const health = await fetch(`${owner.base_url}/v1/health`);
    expect(health.status).toBe(200);
    const status = await svcJson<{ tcp: { base_url: string } }>(home, ['daemon', 'status']);
    expect(status.tcp.base_url).toBe(owner.base_url);
  });

  it('mints an app token with --app and --scopes, expiring with --expires-in', async () => {
    const app = await svcJson<Connection>(home, [
      'sys',
      'connect',
      '--app',
      'notes',
      '--scopes',
      'svc:llm, svc:memory:read:user',
      '--expires-in',
      '1h',
    ]);
    expect(app.token).toMatch(/^svc_app_/);
    expect(app).toMatchObject({ app_id: 'notes', scopes: ['svc:llm', 'svc:memory:read:user'] });
    const expires = Date.parse(app.expires_at ?? '');
    expect(Math.abs(expires - (Date.now() + 3_600_000))).toBeLessThan(60_000);
  });

  it('takes --scopes as separate words or repeated, keeping every one', async () => {
    for (const scopes of [
      ['--scopes', 'svc:llm', 'svc:act'],
      ['--scopes', 'svc:llm', '--scopes', 'svc:act'],
      ['--scopes', 'svc:llm,svc:act'],
    ]) {
      const app = await svcJson<Connection>(home, ['sys', 'connect', '--app', 'words', ...scopes]);
      expect(app.scopes).toEqual(['svc:llm', 'svc:act']);
    }
  });

  it('refuses --scopes without --app locally, with exit 2', async () => {
    const run = await svc(home, ['sys', 'connect', '--scopes', 'svc:llm']);
    expect(run.code).toBe(2);
    expect(oneErrorLine(run)).toMatch(/--scopes requires --app/);
  });

  it.each([
    ['llm', 'svc:llm'],
    ['memory:read', 'svc:memory:read'],
  ])('refuses the retired name %s locally, naming %s', async (legacy, modern) => {
    const run = await svc(home, ['sys', 'connect', '--app', 'notes', '--scopes', legacy]);
    expect(run.code).toBe(2);
    expect(oneErrorLine(run)).toContain(modern);
  });

  it('refuses svc:act without svc:llm locally', async () => {
    const run = await svc(home, ['sys', 'connect', '--app', 'notes', '--scopes', 'svc:act']);
    expect(run.code).toBe(2);
    expect(oneErrorLine(run)).toMatch(/svc:act.*svc:llm/);
  });

  it('the daemon validates again: a retired name sent raw is a 400 naming the svc: form', async () => {
    const run = await svc(home, [
      'request',
      'POST',
      '/v1/connect',
      '--data',
      '{"app_id":"notes","scopes":["llm"]}',
    ]);
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toMatch(/svc:llm.*\(invalid_request, request \S+\)$/);
    const noApp = await svc(home, [
      'request',
      'POST',
      '/v1/connect',
      '--data',
      '{"scopes":["svc:llm"]}',
    ]);
    expect(oneErrorLine(noApp)).toMatch(/\(invalid_request, request \S+\)$/);
  });
});

describe('an app token over TCP through @svc/client', () => {
  let app: Connection;
  let client: Svc;

  beforeAll(async () => {
    app = await svcJson<Connection>(home, [
      'sys',
      'connect',
      '--app',
      'reader',
      '--scopes',
      'svc:llm',
    ]);
    client = new Svc({ baseUrl: app.base_url, token: app.token, maxRetries: 0 });
  });

  it('reaches what any token may: status and its own grant', async () => {
    expect(await client.system.status()).toMatchObject({ status: 'ready' });
    expect(await client.grant.get()).toMatchObject({
      kind: 'app',
      app_id: 'reader',
      scopes: ['svc:llm'],
    });
  });

  it('is denied an owner-only route: 403 forbidden', async () => {
    const err = await client.request('GET', '/v1/tokens').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('is denied a scope it lacks: 403 scope_missing naming the scope and its own list', async () => {
    const err = await client.bash.run({ command: 'true', cwd: '/' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err).toMatchObject({
      status: 403,
      code: 'scope_missing',
      field: 'svc:act',
      received: ['svc:llm'],
    });
    expect((err as PermissionDeniedError).requestId).toBeTruthy();
  });

  it('answers 401 once revoked with svc sys tokens revoke', async () => {
    const revoked = await svcJson<{ id: string; revoked_at: string | null }>(home, [
      'sys',
      'tokens',
      'revoke',
      app.token_id,
    ]);
    expect(revoked.id).toBe(app.token_id);
    expect(revoked.revoked_at).not.toBeNull();
    const err = await client.system.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized' });

    const list = await svcJson<{ data: { id: string; revoked_at: string | null }[] }>(home, [
      'sys',
      'tokens',
      'list',
    ]);
    expect(list.data.find((t) => t.id === app.token_id)?.revoked_at).toBe(revoked.revoked_at);
    const human = await svc(home, ['sys', 'tokens', 'list']);
    expect(human.stdout).toMatch(new RegExp(`^${app.token_id}\\s+app\\s+reader\\s+revoked`, 'm'));
  });

  it('refuses a malformed token id locally (exit 2)', async () => {
    const run = await svc(home, ['sys', 'tokens', 'revoke', 'nope']);
    expect(run.code).toBe(2);
    expect(oneErrorLine(run)).toMatch(/tok_/);
  });
});
