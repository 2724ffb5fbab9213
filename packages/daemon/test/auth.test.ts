import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

async function expectUnauthorized(token: string | null) {
  const res = await t.call('/v1/status', { token });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect((await envelope(res)).code).toBe('unauthorized');
}

describe('bearer tokens', () => {
  it('the owner token reaches everything', async () => {
    const res = await t.call('/v1/grant');
    expect(await res.json()).toMatchObject({
      kind: 'owner',
      app_id: null,
      scopes: null,
      expires_at: null,
    });
  });

  it('missing, malformed and unknown tokens are 401', async () => {
    await expectUnauthorized(null);
    await expectUnauthorized('nonsense');
    await expectUnauthorized(`svc_owner_${'A'.repeat(43)}`);
    const res = await t.call('/v1/status', {
      token: null,
      headers: { authorization: `Basic ${t.ownerToken}` },
    });
    expect(res.status).toBe(401);
  });

  it('a revoked token is 401, and revocation is listed', async () => {
    const { token, token_id } = await t.appToken(['svc:llm']);
    expect((await t.call('/v1/grant', { token })).status).toBe(200);
    const revoked = await t.call(`/v1/tokens/${token_id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect((await revoked.json()) as object).toMatchObject({
      id: token_id,
      revoked_at: expect.any(String),
    });
    await expectUnauthorized(token);
    const list = (await (await t.call('/v1/tokens')).json()) as {
      data: { id: string; revoked_at: string | null }[];
    };
    expect(list.data.find((d) => d.id === token_id)?.revoked_at).toEqual(expect.any(String));
    expect(JSON.stringify(list)).not.toContain(token);
  });

  it('the token list pages by id: limit, has_more, and next_cursor as the next after', async () => {
    await t.appToken(['svc:llm']);
    await t.appToken(['svc:llm']);
    type Page = { data: { id: string }[]; has_more: boolean; next_cursor: string | null };
    const all = (await (await t.call('/v1/tokens?limit=200')).json()) as Page;
    expect(all.has_more).toBe(false);
    expect(all.next_cursor).toBeNull();
    const ids = all.data.map((d) => d.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect([...ids].sort()).toEqual(ids);
    const first = (await (await t.call('/v1/tokens?limit=2')).json()) as Page;
    expect(first.data.map((d) => d.id)).toEqual(ids.slice(0, 2));
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toBe(ids[1]);
    const rest = (await (
      await t.call(`/v1/tokens?limit=200&after=${first.next_cursor}`)
    ).json()) as Page;
    expect(rest.data.map((d) => d.id)).toEqual(ids.slice(2));
    expect(rest.has_more).toBe(false);
  });

  it('an expired token is 401', async () => {
    const { token } = await t.appToken(['svc:llm'], { expires_in_s: 1 });
    expect((await t.call('/v1/grant', { token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    await expectUnauthorized(token);
  });

  it('the owner token cannot be revoked (it is rotated by restart)', async () => {
    const grant = (await (await t.call('/v1/grant')).json()) as { token_id: string };
    const res = await t.call(`/v1/tokens/${grant.token_id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect((await envelope(res)).code).toBe('invalid_state');
  });

  it('revoking an unknown token is 404', async () => {
    const res = await t.call('/v1/tokens/tok_01ARZ3NDEKTSV4RRFFQ69G5FAV', { method: 'DELETE' });
    expect(res.status).toBe(404);
  });
});

describe('route auth', () => {
  it('an app token on an owner-only route is 403 forbidden', async () => {
    const { token } = await t.appToken(['svc:llm', 'svc:act']);
    for (const [path, init] of [
      ['/v1/tokens', {}],
      ['/v1/events', {}],
      ['/v1/connect', { method: 'POST' }],
      ['/v1/shutdown', { method: 'POST' }],
    ] as const) {
      const res = await t.call(path, { ...init, token });
      expect(res.status, path).toBe(403);
      expect((await envelope(res)).code).toBe('forbidden');
    }
  });

  it('an app token without the scope is 403 scope_missing naming wanted and held scopes', async () => {
    const { token } = await t.appToken(['svc:llm', 'svc:schedule']);
    const res = await t.call('/v1/bash', { ...json({ command: 'true', cwd: '/' }), token });
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:act',
      received: ['svc:llm', 'svc:schedule'],
    });
  });

  it('an app token with the scope passes', async () => {
    const { token } = await t.appToken(['svc:llm', 'svc:act']);
    const res = await t.call('/v1/bash', { ...json({ command: 'echo ok', cwd: '/' }), token });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ exit_code: 0, stdout: 'ok\n' });
  });

  it('public routes need no token; any token reads status and readiness', async () => {
    for (const path of ['/healthz', '/v1/health', '/v1/openapi.json']) {
      expect((await t.call(path, { token: null })).status, path).toBe(200);
    }
    const { token } = await t.appToken([]);
    expect((await t.call('/v1/status', { token })).status).toBe(200);
    const readiness = (await (await t.call('/v1/model-auth/readiness', { token })).json()) as {
      providers: unknown[];
    };
    expect(readiness.providers).toContainEqual(
      expect.objectContaining({ provider: 'scripted', ready: true }),
    );
  });
});

describe('connect validation', () => {
  it('refuses legacy scope names naming the svc: form', async () => {
    const res = await t.call('/v1/connect', json({ app_id: 'a', scopes: ['act'] }));
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'scopes' });
    expect(error.message).toContain("'svc:act'");
  });

  it('refuses svc:act without svc:llm, and scopes without app_id', async () => {
    const act = await t.call('/v1/connect', json({ app_id: 'a', scopes: ['svc:act'] }));
    expect(act.status).toBe(400);
    expect((await envelope(act)).message).toContain('svc:llm');
    const noApp = await t.call('/v1/connect', json({ scopes: ['svc:llm'] }));
    expect(noApp.status).toBe(400);
    expect(await envelope(noApp)).toMatchObject({ code: 'invalid_request', field: 'scopes' });
  });

  it('turns the TCP listener on when it is off, on the host asked for', async () => {
    const fresh = await startTestDaemon();
    try {
      expect(fresh.daemon.tcp).toBeNull();
      const bad = await fresh.call('/v1/connect', json({ host: 'example.com' }));
      expect(bad.status).toBe(400);
      expect(await envelope(bad)).toMatchObject({ code: 'invalid_request', field: 'host' });
      expect(fresh.daemon.tcp).toBeNull();
      const res = await fresh.call(
        '/v1/connect',
        json({ app_id: 'a', scopes: ['svc:llm'], host: '127.0.0.1' }),
      );
      const body = (await res.json()) as { base_url: string; token: string };
      expect(body.base_url).toBe(fresh.daemon.tcp?.base_url);
      expect(body.token).toMatch(/^svc_app_[A-Za-z0-9_-]{43}$/);
      const other = await fresh.call('/v1/connect', json({ host: '::1' }));
      expect(other.status).toBe(409);
      expect((await envelope(other)).code).toBe('invalid_state');
    } finally {
      await fresh.stop();
    }
  });
});

describe('request ids', () => {
  it('echoes a sane caller id and replaces anything else', async () => {
    const mine = await t.call('/healthz', { headers: { 'svc-request-id': 'abc.DEF_1:2-3' } });
    expect(mine.headers.get('svc-request-id')).toBe('abc.DEF_1:2-3');
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const res = await t.call('/healthz', { headers: { 'svc-request-id': bad } });
      expect(res.headers.get('svc-request-id')).not.toBe(bad);
      expect(res.headers.get('svc-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    }
    const error = await t.call('/v1/nope', { headers: { 'svc-request-id': 'req-42' } });
    expect(error.headers.get('svc-request-id')).toBe('req-42');
    expect((await envelope(error)).request_id).toBe('req-42');
  });
});
