import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestIssuer } from '../src/testing/index.ts';

describe('createTestIssuer', () => {
  it('serves its public keys at <issuer>/.well-known/jwks.json, and 404 elsewhere', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://dir.example/t/1/' });
    const response = await issuer.fetch('https://dir.example/t/1/.well-known/jwks.json');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { keys: Record<string, unknown>[] };
    expect(body).toEqual(issuer.jwks());
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toHaveProperty('kid');
    expect(body.keys[0]?.alg).toBe('ES256');
    expect(body.keys[0]?.d).toBeUndefined(); // public only
    expect((await issuer.fetch('https://dir.example/.well-known/jwks.json')).status).toBe(404);
    expect(
      (
        await issuer.fetch(
          new Request('https://dir.example/t/1/.well-known/jwks.json', { method: 'POST' }),
        )
      ).status,
    ).toBe(404);
  });

  it('mints tokens with sensible defaults for the required claims', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://dir.example' });
    const token = await issuer.mint({ aud: 'https://p.example', scope: ['acme:tickets'] });
    const claims = decodeJwt(token);
    const now = Math.floor(Date.now() / 1000);
    expect(claims.iss).toBe('https://dir.example');
    expect(claims.aud).toBe('https://p.example');
    expect(claims.scope).toEqual(['acme:tickets']);
    for (const name of ['sub', 'grantee', 'client_id', 'initiating_app', 'jti']) {
      expect(typeof claims[name]).toBe('string');
    }
    expect(claims.act).toEqual({ sub: 'nd_test' });
    expect(claims.exp).toBeGreaterThan(now + 250);
    expect(claims.exp).toBeLessThanOrEqual(now + 301);
    expect(claims.run_id).toBeUndefined();
    expect(decodeJwt(await issuer.mint({ aud: 'a', scope: 's' })).jti).not.toBe(claims.jti);
    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('ES256');
    expect(header.kid).toBe(issuer.jwks().keys[0]?.kid);
  });

  it('lets a test override a claim, the kid, or omit a claim', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://dir.example' });
    const token = await issuer.mint({
      aud: 'a',
      scope: 's',
      sub: 'u1',
      kid: 'other',
      omit: ['jti'],
    });
    expect(decodeJwt(token).sub).toBe('u1');
    expect(decodeJwt(token).jti).toBeUndefined();
    expect(decodeProtectedHeader(token).kid).toBe('other');
  });

  it('rotates to a new key, keeping the previous one published', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://dir.example' });
    const before = issuer.jwks().keys[0]?.kid;
    await issuer.rotate();
    const kids = issuer.jwks().keys.map((k) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(before);
    const token = await issuer.mint({ aud: 'a', scope: 's' });
    expect(decodeProtectedHeader(token).kid).toBe(kids[0]);
  });

  it('names the key that signs: signWith the key kept before rotate gives its kid, and verifies', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://dir.example' });
    const before = {
      privateKey: issuer.privateKey,
      publicKey: issuer.publicKey,
      kid: issuer.publicJwk.kid,
    };
    await issuer.rotate();
    const old = await issuer.mint({
      aud: 'https://p.example',
      scope: 'a:b',
      signWith: before.privateKey,
    });
    expect(decodeProtectedHeader(old).kid).toBe(before.kid);
    await jwtVerify(old, before.publicKey);
    const fresh = await issuer.mint({ aud: 'https://p.example', scope: 'a:b' });
    expect(decodeProtectedHeader(fresh).kid).toBe(issuer.publicJwk.kid);
    // a key that is not the issuer's borrows the current key's id, as a forger's would
    const stranger = await createTestIssuer();
    const forged = await issuer.mint({
      aud: 'https://p.example',
      scope: 'a:b',
      signWith: stranger.privateKey,
    });
    expect(decodeProtectedHeader(forged).kid).toBe(issuer.publicJwk.kid);
    // an explicit kid still wins
    const named = await issuer.mint({
      aud: 'https://p.example',
      scope: 'a:b',
      signWith: before.privateKey,
      kid: 'k',
    });
    expect(decodeProtectedHeader(named).kid).toBe('k');
  });

  it('hands out its current key pair, to sign a token mint cannot shape', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://dir.example', alg: 'ES256' });
    expect(issuer.alg).toBe('ES256');
    expect(issuer.publicJwk).toEqual(issuer.jwks().keys[0]);
    expect(issuer.publicJwk.d).toBeUndefined();
    const token = await new SignJWT({ custom: true })
      .setProtectedHeader({ alg: issuer.alg, kid: issuer.publicJwk.kid ?? '' })
      .sign(issuer.privateKey);
    expect((await jwtVerify(token, issuer.publicKey)).payload.custom).toBe(true);

    const { kid } = issuer.publicJwk;
    const privateKey = issuer.privateKey;
    await issuer.rotate();
    expect(issuer.publicJwk.kid).not.toBe(kid);
    expect(issuer.privateKey).not.toBe(privateKey);
    expect(issuer.publicJwk).toEqual(issuer.jwks().keys[0]);
  });

  it('needs no options: issuer https://directory.test, ES256', async () => {
    const issuer = await createTestIssuer();
    expect(issuer.issuer).toBe('https://directory.test');
    expect(issuer.alg).toBe('ES256');
    const token = await issuer.mint({ aud: 'a', scope: 's' });
    expect(decodeJwt(token).iss).toBe('https://directory.test');
    const served = await issuer.fetch('https://directory.test/.well-known/jwks.json');
    expect(((await served.json()) as { keys: unknown[] }).keys).toEqual(issuer.jwks().keys);
  });
});
