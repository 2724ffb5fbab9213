import { base64url, compactVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Caller, createFetchHandler, type FetchHandlerOptions } from '../src/index.ts';
import { createTestIssuer, type MintClaims, type TestIssuer } from '../src/testing/index.ts';
import { acmeDefinition, errorOf, get, ORIGIN, post, sleep } from './helpers.ts';

const ISSUER = 'https://dir.example';
const AUDIENCE = 'https://plugins.example/acme';
const REQUEST_ID = 'req_01HX-test';

/** A handler in directory mode whose key-set fetches go to `issuer`, counted. */
function setup(issuer: TestIssuer, jwks: FetchHandlerOptions['jwks'] = {}) {
  const counter = { fetches: 0 };
  const handler = createFetchHandler([{ ...acmeDefinition(), version: 1 }], {
    auth: { issuer: ISSUER, audience: AUDIENCE },
    jwks: {
      ...jwks,
      fetch: (input, init) => {
        counter.fetches++;
        return jwks.fetch ? jwks.fetch(input, init) : issuer.fetch(input, init);
      },
    },
  });
  const call = (
    token: string | null,
    path = '/acme/tickets/echo',
    requestId: string | null = REQUEST_ID,
  ) =>
    handler(
      post(
        path,
        { hello: 'world' },
        {
          ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
          ...(requestId === null ? {} : { 'Svc-Request-Id': requestId }),
        },
      ),
    );
  return { handler, call, counter };
}

async function expectUnauthorized(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
  expect((await errorOf(response)).code).toBe('unauthorized');
}

const now = () => Math.floor(Date.now() / 1000);

let issuer: TestIssuer;
let env: ReturnType<typeof setup>;
const mint = (claims: Partial<MintClaims> = {}) =>
  issuer.mint({ aud: AUDIENCE, scope: 'acme:tickets', ...claims });

beforeAll(async () => {
  issuer = await createTestIssuer({ issuer: ISSUER });
  env = setup(issuer);
});

describe('directory mode: a valid token', () => {
  it('runs the command and gives ctx.caller all nine fields', async () => {
    const token = await mint({
      sub: 'user_42',
      grantee: 'app_crm',
      client_id: 'cli_7',
      scope: 'other:x acme:tickets',
      initiating_app: 'app_mail',
      act: { sub: 'nd_01' },
      jti: 'jti_1',
      run_id: 'run_9',
    });
    const response = await env.call(token);
    expect(response.status).toBe(200);
    expect(response.headers.get('Svc-Request-Id')).toBe(REQUEST_ID);
    const { caller } = (await response.json()) as { caller: Caller };
    expect(caller).toStrictEqual({
      sub: 'user_42',
      grantee: 'app_crm',
      clientId: 'cli_7',
      scope: ['other:x', 'acme:tickets'],
      initiatingApp: 'app_mail',
      act: { sub: 'nd_01' },
      jti: 'jti_1',
      requestId: REQUEST_ID,
      runId: 'run_9',
    });
  });

  it('leaves the cross-site refusal to the token: a simple cross-site post needs one to run', async () => {
    // As in token mode: a browser adds Authorization cross-site only after a preflight.
    const crossSite = (headers: Record<string, string>) =>
      env.handler(
        new Request(`${ORIGIN}/acme/tickets/echo`, {
          method: 'POST',
          body: '{"x":1}',
          headers: {
            'Content-Type': 'text/plain',
            'Sec-Fetch-Site': 'cross-site',
            'Svc-Request-Id': REQUEST_ID,
            ...headers,
          },
        }),
      );
    await expectUnauthorized(await crossSite({}));
    const response = await crossSite({ Authorization: `Bearer ${await mint()}` });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { input: unknown }).input).toEqual({ x: 1 });
  });

  it('leaves runId out when the token has no run_id', async () => {
    const response = await env.call(await mint());
    const { caller } = (await response.json()) as { caller: Caller };
    expect(caller.runId).toBeUndefined();
    expect(Object.keys(caller)).not.toContain('runId');
  });

  it('leaves runId out when run_id is null', async () => {
    const response = await env.call(await mint({ run_id: null as unknown as string }));
    expect(response.status).toBe(200);
    const { caller } = (await response.json()) as { caller: Caller };
    expect(Object.keys(caller)).not.toContain('runId');
  });

  it('accepts the scope claim as an array', async () => {
    const response = await env.call(await mint({ scope: ['acme:admin', 'acme:tickets'] }));
    expect(response.status).toBe(200);
    const { caller } = (await response.json()) as { caller: Caller };
    expect(caller.scope).toEqual(['acme:admin', 'acme:tickets']);
  });

  it('accepts an aud array that contains the audience', async () => {
    expect((await env.call(await mint({ aud: ['https://other.example', AUDIENCE] }))).status).toBe(
      200,
    );
  });

  it('forgives nbf a few seconds ahead, but refuses a token at or past exp', async () => {
    expect((await env.call(await mint({ nbf: now() + 2 }))).status).toBe(200);
    await expectUnauthorized(await env.call(await mint({ exp: now() - 2 })));
    await expectUnauthorized(await env.call(await mint({ exp: now() })));
  });

  it('verifies a token without kid against each key of its algorithm (a rotation publishes two)', async () => {
    const rotating = await createTestIssuer({ issuer: ISSUER });
    const kidless = () => rotating.mint({ aud: AUDIENCE, scope: 'acme:tickets', kid: null });
    expect((await setup(rotating).call(await kidless())).status).toBe(200);
    const previousKey = rotating.privateKey;
    const previousPublic = rotating.publicKey;
    await rotating.rotate();
    expect(rotating.jwks().keys).toHaveLength(2);
    const fresh = setup(rotating); // a handler that loads both keys
    // signed by the current key, the first the key set lists
    expect((await fresh.call(await kidless())).status).toBe(200);
    // signed by the previous key, the second: the first candidate fails, the next verifies
    const byPrevious = await rotating.mint({
      aud: AUDIENCE,
      scope: 'acme:tickets',
      kid: null,
      signWith: previousKey,
    });
    // really signed by the previous key, which the set lists second
    await compactVerify(byPrevious, previousPublic);
    await expect(compactVerify(byPrevious, rotating.publicKey)).rejects.toThrow();
    expect((await fresh.call(byPrevious)).status).toBe(200);
    // one signed by neither key is still refused, after trying both
    const stranger = await createTestIssuer({ issuer: ISSUER });
    await expectUnauthorized(
      await fresh.call(await stranger.mint({ aud: AUDIENCE, scope: 'acme:tickets', kid: null })),
    );
    expect(fresh.counter.fetches).toBe(1);
  });

  it('works with RS256, PS256 and EdDSA issuers', async () => {
    for (const alg of ['RS256', 'PS256', 'EdDSA'] as const) {
      const other = await createTestIssuer({ issuer: ISSUER, alg });
      const { call } = setup(other);
      const token = await other.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
      expect((await call(token)).status).toBe(200);
    }
  });
});

describe('directory mode: rejected tokens answer 401 unauthorized', () => {
  it('a missing bearer', async () => {
    await expectUnauthorized(await env.call(null));
  });

  it('a token that is not a JWT', async () => {
    await expectUnauthorized(await env.call('not-a-jwt'));
    await expectUnauthorized(await env.call('a.b.c'));
  });

  it('alg: none', async () => {
    const kid = issuer.jwks().keys[0]?.kid;
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT', kid }));
    const payload = base64url.encode(
      JSON.stringify({
        iss: ISSUER,
        aud: AUDIENCE,
        scope: 'acme:tickets',
        sub: 's',
        grantee: 'g',
        client_id: 'c',
        initiating_app: 'a',
        act: { sub: 'n' },
        jti: 'j',
        exp: now() + 300,
      }),
    );
    await expectUnauthorized(await env.call(`${header}.${payload}.`));
  });

  it('HS256 signed with the public key bytes (algorithm confusion)', async () => {
    const jwk = issuer.jwks().keys[0];
    const secrets = [JSON.stringify(jwk), String(jwk?.x), `${jwk?.x}${jwk?.y}`];
    for (const secret of secrets) {
      const token = await new SignJWT({
        scope: 'acme:tickets',
        sub: 's',
        grantee: 'g',
        client_id: 'c',
        initiating_app: 'a',
        act: { sub: 'n' },
        jti: 'j',
      })
        .setProtectedHeader({ alg: 'HS256', kid: jwk?.kid ?? '' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      await expectUnauthorized(await env.call(token));
    }
  });

  it('a tampered payload or signature', async () => {
    const [header, payload, signature] = (await mint()).split('.');
    const forged = base64url.encode(
      JSON.stringify({
        ...JSON.parse(new TextDecoder().decode(base64url.decode(payload ?? ''))),
        scope: 'acme:admin',
      }),
    );
    await expectUnauthorized(await env.call(`${header}.${forged}.${signature}`));
    const flipped = `${signature?.slice(0, -2)}${signature?.endsWith('AA') ? 'BB' : 'AA'}`;
    await expectUnauthorized(await env.call(`${header}.${payload}.${flipped}`));
  });

  it('a token signed by another key under a known kid', async () => {
    const impostor = await createTestIssuer({ issuer: ISSUER });
    const kid = issuer.jwks().keys[0]?.kid ?? '';
    await expectUnauthorized(
      await env.call(await impostor.mint({ aud: AUDIENCE, scope: 'acme:tickets', kid })),
    );
  });

  it('expired', async () => {
    await expectUnauthorized(await env.call(await mint({ exp: now() - 60 })));
  });

  it('not yet valid', async () => {
    await expectUnauthorized(await env.call(await mint({ nbf: now() + 60 })));
  });

  it('a wrong iss, including a trailing slash', async () => {
    await expectUnauthorized(await env.call(await mint({ iss: 'https://evil.example' })));
    await expectUnauthorized(await env.call(await mint({ iss: `${ISSUER}/` })));
  });

  it('an aud that differs, including by a trailing slash', async () => {
    await expectUnauthorized(await env.call(await mint({ aud: `${AUDIENCE}/` })));
    await expectUnauthorized(await env.call(await mint({ aud: 'https://plugins.example' })));
  });

  it('a token missing a required claim', async () => {
    for (const claim of ['exp', 'sub', 'grantee', 'client_id', 'initiating_app', 'act', 'jti']) {
      await expectUnauthorized(await env.call(await mint({ omit: [claim] })));
    }
  });

  it('a claim of the wrong type', async () => {
    await expectUnauthorized(
      await env.call(await mint({ act: 'nd_1' as unknown as { sub: string } })),
    );
    await expectUnauthorized(await env.call(await mint({ scope: [1] as unknown as string[] })));
    await expectUnauthorized(await env.call(await mint({ run_id: 5 as unknown as string })));
  });

  it('never echoes the token or the reason in the answer', async () => {
    const token = await mint({ exp: now() - 60 });
    const response = await env.call(token);
    const text = await response.text();
    expect(text).not.toContain(token);
    expect(text).not.toMatch(/exp|expired/i);
  });
});

describe('directory mode: scope and request id', () => {
  it('answers 403 scope_missing with field and received = <plugin>:<group>', async () => {
    for (const scope of [
      'acme:admin',
      'acme',
      'acme:ticket',
      'acme:tickets:read',
      '',
      ['acme:admin'],
    ]) {
      const response = await env.call(await mint({ scope }), '/acme/tickets/create');
      expect(response.status).toBe(403);
      const error = await errorOf(response);
      expect(error.code).toBe('scope_missing');
      expect(error.field).toBe('acme:tickets');
      expect(error.received).toBe('acme:tickets');
      expect(error.request_id).toBe(REQUEST_ID);
    }
  });

  it('answers 403 scope_missing for a token with no scope claim at all', async () => {
    const response = await env.call(await mint({ omit: ['scope'] }), '/acme/tickets/create');
    expect(response.status).toBe(403);
    const error = await errorOf(response);
    expect(error.code).toBe('scope_missing');
    expect(error.field).toBe('acme:tickets');
    expect(error.received).toBe('acme:tickets');
  });

  it("checks the called leaf's group", async () => {
    const token = await mint({ scope: 'acme:admin' });
    expect((await env.call(token, '/acme/admin/purge')).status).toBe(200);
    expect((await env.call(token, '/v1/acme/tickets/echo')).status).toBe(403);
  });

  it('answers 400 request_id_missing without Svc-Request-Id', async () => {
    const response = await env.call(await mint(), '/acme/tickets/echo', null);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('request_id_missing');
    expect(error.field).toBe('Svc-Request-Id');
    // the answer still carries an id, a generated one
    expect(response.headers.get('Svc-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.request_id).toBe(response.headers.get('Svc-Request-Id'));
  });

  it('answers 400 request_id_missing for an unusable Svc-Request-Id', async () => {
    for (const id of ['a b', 'x'.repeat(201), 'é']) {
      const response = await env.call(await mint(), '/acme/tickets/echo', id);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('request_id_missing');
    }
  });

  it('checks in order: token (401), then scope (403), then request id (400)', async () => {
    await expectUnauthorized(
      await env.call(await mint({ exp: now() - 60, scope: 'x:y' }), undefined, null),
    );
    const noScope = await env.call(await mint({ scope: 'x:y' }), undefined, null);
    expect(noScope.status).toBe(403);
  });

  it('keeps the archive and /versions public', async () => {
    expect((await env.handler(get('/plugins'))).status).toBe(200);
    expect((await env.handler(get('/plugins/v1/'))).status).toBe(200);
    expect((await env.handler(get('/plugins/versions'))).status).toBe(200);
  });
});

describe('directory mode: key set fetching', () => {
  it('fetches the key set once and caches it', async () => {
    const local = setup(issuer);
    for (let i = 0; i < 5; i++) expect((await local.call(await mint())).status).toBe(200);
    expect(local.counter.fetches).toBe(1);
  });

  it('shares one fetch among concurrent first requests', async () => {
    const local = setup(issuer);
    const tokens = await Promise.all(Array.from({ length: 10 }, () => mint()));
    const responses = await Promise.all(tokens.map((t) => local.call(t)));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(local.counter.fetches).toBe(1);
  });

  it('resists a kid flood: unknown kids cause at most one fetch per cooldown', async () => {
    const local = setup(issuer, { cooldownMs: 60_000 });
    expect((await local.call(await mint())).status).toBe(200);
    for (let i = 0; i < 30; i++) {
      await expectUnauthorized(await local.call(await mint({ kid: `unknown-${i}` })));
    }
    // the load, then the one refetch the first unknown kid may make
    expect(local.counter.fetches).toBe(2);
  });

  it('resists a kid flood that starts cold: one fetch in all', async () => {
    const local = setup(issuer, { cooldownMs: 60_000 });
    for (let i = 0; i < 30; i++) {
      await expectUnauthorized(await local.call(await mint({ kid: `unknown-${i}` })));
    }
    expect(local.counter.fetches).toBe(1);
    // and a good token still verifies with the keys that one fetch brought
    expect((await local.call(await mint())).status).toBe(200);
    expect(local.counter.fetches).toBe(1);
  });

  it('refetches once for an unknown kid after the cooldown (key rotation)', async () => {
    const rotating = await createTestIssuer({ issuer: ISSUER });
    const local = setup(rotating, { cooldownMs: 20 });
    const first = await rotating.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
    expect((await local.call(first)).status).toBe(200);
    await rotating.rotate();
    await sleep(40);
    const rotated = await rotating.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
    expect((await local.call(rotated)).status).toBe(200);
    expect(local.counter.fetches).toBe(2);
    // the previous key stays published, so tokens minted before the rotation still verify
    expect((await local.call(first)).status).toBe(200);
    expect(local.counter.fetches).toBe(2);
  });

  it('refetches once for a key rotated in right after the first load, then not within the cooldown', async () => {
    const rotating = await createTestIssuer({ issuer: ISSUER });
    const local = setup(rotating, { cooldownMs: 60_000 });
    const mintRotating = () => rotating.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
    expect((await local.call(await mintRotating())).status).toBe(200);
    await rotating.rotate();
    expect((await local.call(await mintRotating())).status).toBe(200);
    expect(local.counter.fetches).toBe(2);
    // that refetch started the cooldown: the next rotation waits for it to pass
    await rotating.rotate();
    await expectUnauthorized(await local.call(await mintRotating()));
    expect(local.counter.fetches).toBe(2);
  });

  it('refetches when the cached key set is older than cacheMaxAgeMs', async () => {
    // the refresh of a stale set is an attempt like any other: the cooldown must have passed
    const local = setup(issuer, { cacheMaxAgeMs: 20, cooldownMs: 20 });
    expect((await local.call(await mint())).status).toBe(200);
    await sleep(40);
    expect((await local.call(await mint())).status).toBe(200);
    expect(local.counter.fetches).toBe(2);
  });

  it('answers 401 when the key set endpoint fails, errors or answers garbage', async () => {
    const failures: ((input: string, init: RequestInit) => Promise<Response>)[] = [
      () => Promise.reject(new TypeError('fetch failed: ECONNREFUSED')),
      async () => new Response('oops', { status: 500 }),
      async () => new Response('<html>', { status: 200 }),
      async () => Response.json({ keys: 'nope' }),
      async () =>
        new Response(null, { status: 302, headers: { Location: 'https://evil.example/' } }),
    ];
    for (const fetch of failures) {
      const local = setup(issuer, { fetch });
      await expectUnauthorized(await local.call(await mint()));
    }
  });

  it('reads at most 1 MiB of a key set, and no further into an endless one', async () => {
    const padded = (bytes: number) => async () =>
      new Response(JSON.stringify(issuer.jwks()) + ' '.repeat(bytes));
    expect((await setup(issuer, { fetch: padded(1_000_000) }).call(await mint())).status).toBe(200);
    await expectUnauthorized(await setup(issuer, { fetch: padded(1 << 20) }).call(await mint()));
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let pulled = 0;
    const endless = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            // bounded all the same: 64 MiB, should the reader never stop
            if (pulled >= 64 << 20) return controller.close();
            pulled += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
    await expectUnauthorized(await setup(issuer, { fetch: endless }).call(await mint()));
    expect(pulled).toBeLessThanOrEqual((1 << 20) + 2 * chunk.byteLength);
  });

  it('answers 401 well within the timeout when the key set endpoint hangs', async () => {
    const local = setup(issuer, { fetch: () => new Promise<Response>(() => {}), timeoutMs: 100 });
    const started = Date.now();
    await expectUnauthorized(await local.call(await mint()));
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fetches <issuer>/.well-known/jwks.json, keeping the issuer path', async () => {
    const urls: string[] = [];
    const tenant = await createTestIssuer({ issuer: 'https://dir.example/tenants/7' });
    const handler = createFetchHandler(acmeDefinition(), {
      auth: { issuer: 'https://dir.example/tenants/7', audience: AUDIENCE },
      jwks: {
        fetch: (input, init) => {
          urls.push(String(input));
          return tenant.fetch(input, init);
        },
      },
    });
    const token = await tenant.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
    const response = await handler(
      post('/acme/tickets/echo', {}, { Authorization: `Bearer ${token}`, 'Svc-Request-Id': 'r1' }),
    );
    expect(response.status).toBe(200);
    expect(urls).toEqual(['https://dir.example/tenants/7/.well-known/jwks.json']);
  });
});

describe('directory mode: the key set cache while the directory is down or slow', () => {
  type JwksFetch = (input: string, init: RequestInit) => Promise<Response>;
  /** Each way a key-set fetch can fail: refused, non-200, not JSON, JSON but not a key set. */
  const failures: [string, JwksFetch][] = [
    ['refused', () => Promise.reject(new TypeError('fetch failed: ECONNREFUSED'))],
    ['500', async () => new Response('oops', { status: 500 })],
    ['not JSON', async () => new Response('<html>', { status: 200 })],
    ['not a key set', async () => Response.json({ keys: 'nope' })],
  ];
  /** The test issuer's endpoint, which `down` turns into a refused connection. */
  const switchable = (target: TestIssuer) => {
    const endpoint: { down: boolean; fetch: JwksFetch } = {
      down: false,
      fetch: (input, init) =>
        endpoint.down
          ? Promise.reject(new TypeError('fetch failed: ECONNREFUSED'))
          : target.fetch(input, init),
    };
    return endpoint;
  };

  it('down from the start: many requests within the cooldown cause exactly one fetch', async () => {
    for (const [name, fetch] of failures) {
      const local = setup(issuer, { fetch, cooldownMs: 60_000 });
      const tokens = await Promise.all(Array.from({ length: 20 }, () => mint()));
      const concurrent = await Promise.all(tokens.slice(0, 10).map((t) => local.call(t)));
      for (const response of concurrent) await expectUnauthorized(response);
      for (const token of tokens.slice(10)) await expectUnauthorized(await local.call(token));
      expect(`${name}: ${local.counter.fetches}`).toBe(`${name}: 1`);
    }
  });

  it('down after a good fetch: a flood of unknown kids adds at most one fetch per cooldown', async () => {
    const cooldownMs = 100;
    const endpoint = switchable(issuer);
    const local = setup(issuer, { fetch: endpoint.fetch, cooldownMs });
    expect((await local.call(await mint())).status).toBe(200);
    await sleep(cooldownMs + 30);
    endpoint.down = true;
    const flood = await Promise.all(Array.from({ length: 30 }, (_, i) => mint({ kid: `x-${i}` })));
    for (let round = 0; round < 2; round++) {
      const before = local.counter.fetches;
      const started = Date.now();
      const concurrent = await Promise.all(flood.slice(0, 10).map((t) => local.call(t)));
      for (const response of concurrent) await expectUnauthorized(response);
      for (const token of flood.slice(10)) await expectUnauthorized(await local.call(token));
      const added = local.counter.fetches - before;
      expect(added).toBeGreaterThanOrEqual(1);
      expect(added).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / cooldownMs));
      // the keys already held still verify while the directory is down
      expect((await local.call(await mint())).status).toBe(200);
      await sleep(cooldownMs + 30);
    }
  });

  it('stale cache and the directory down: a token with a known kid still verifies', async () => {
    const endpoint = switchable(issuer);
    const local = setup(issuer, { fetch: endpoint.fetch, cacheMaxAgeMs: 20, cooldownMs: 50 });
    expect((await local.call(await mint())).status).toBe(200);
    await sleep(80);
    endpoint.down = true;
    expect((await local.call(await mint())).status).toBe(200);
    expect(local.counter.fetches).toBe(2);
    // once the directory is back, the next refetch after the cooldown renews the keys
    endpoint.down = false;
    await sleep(80);
    expect((await local.call(await mint())).status).toBe(200);
    expect(local.counter.fetches).toBe(3);
  });

  it('stale cache and a slow directory: the refresh waits at most timeoutMs, then the old keys verify', async () => {
    let slow = false;
    const fetch: JwksFetch = async (input, init) => {
      if (slow) await sleep(1_000);
      return issuer.fetch(input, init);
    };
    const local = setup(issuer, { fetch, cacheMaxAgeMs: 20, cooldownMs: 20, timeoutMs: 100 });
    expect((await local.call(await mint())).status).toBe(200);
    await sleep(40);
    slow = true;
    const started = Date.now();
    expect((await local.call(await mint())).status).toBe(200);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(80);
    expect(elapsed).toBeLessThan(900);
    expect(local.counter.fetches).toBe(2);
  });

  it('stale cache: a key the directory has dropped stops verifying once the refresh lands', async () => {
    const own = await createTestIssuer({ issuer: ISSUER }); // rotated below: not the shared one
    const ownMint = () => own.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
    const local = setup(own, { cacheMaxAgeMs: 20, cooldownMs: 20 });
    const old = await ownMint();
    expect((await local.call(old)).status).toBe(200);
    await own.rotate();
    await own.rotate(); // the first key is no longer published
    await sleep(40);
    await expectUnauthorized(await local.call(old));
    expect((await local.call(await ownMint())).status).toBe(200);
  });

  it('slow endpoint: 401 after about timeoutMs, and no more waiting within the cooldown', async () => {
    const timeoutMs = 150;
    // never answers and ignores its signal: only the kit's own bound ends it
    const local = setup(issuer, { fetch: () => new Promise<Response>(() => {}), timeoutMs });
    const tokens = await Promise.all(Array.from({ length: 15 }, () => mint()));
    let started = Date.now();
    const concurrent = await Promise.all(tokens.slice(0, 5).map((t) => local.call(t)));
    const elapsed = Date.now() - started;
    for (const response of concurrent) await expectUnauthorized(response);
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs * 0.8);
    expect(elapsed).toBeLessThan(timeoutMs + 1_000);
    started = Date.now();
    for (const token of tokens.slice(5)) await expectUnauthorized(await local.call(token));
    expect(Date.now() - started).toBeLessThan(timeoutMs);
    expect(local.counter.fetches).toBe(1);
  });
});
