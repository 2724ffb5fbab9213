/**
 * The daemon as the directory of its plugins (DESIGN §5, "Directory"), end to end: a plugin built
 * with the kit in directory mode, its `issuer` the daemon's TCP listener, installed through
 * `/v1/plugins`, and scripted nodes on real brokers calling it with tokens the daemon signs.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { startDaemon } from '@svc/daemon';
import { createFetchHandler, definePlugin } from '@svc/plugin-kit';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryKeys, RETIRING_MS } from '../src/directory/keys.ts';
import {
  createNode,
  isFinal,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, socketFetch, startTestDaemon, type TestDaemon } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

const audit = definePlugin({
  name: 'audit',
  description: 'Who called',
  groups: {
    log: {
      description: 'The audit log',
      commands: {
        // Answers the verified caller, so the test sees what the token said.
        whoami: {
          description: 'The caller, as verified',
          handler: (_input, ctx) => ({ ...ctx.caller }),
        },
      },
    },
  },
});

let t: TestDaemon;
let server: ReturnType<typeof serve>;
/** How many times the plugin fetched the daemon's JWKS. */
let jwksFetches = 0;
let endpoint = '';
let baseUrl = '';

beforeAll(async () => {
  t = await startTestDaemon({ tcp: { host: '127.0.0.1', port: 0 }, brokers: { concurrency: 2 } });
  baseUrl = t.daemon.tcp!.base_url;
  // The port is known only once listening, and the handler needs its own URL as `audience`.
  let handler: ((request: Request) => Promise<Response>) | undefined;
  server = serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => handler!(request) });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`;
  handler = createFetchHandler(audit, {
    auth: { issuer: baseUrl, audience: endpoint },
    jwks: {
      fetch: (input, init) => {
        jwksFetches++;
        return fetch(input, init);
      },
    },
  });
  const installed = await t.call('/v1/plugins', json({ endpoint, name: 'audit' }));
  expect(installed.status).toBe(200);
  expect((await t.call('/v1/profiles/default', json({}, 'PUT'))).status).toBe(200);
});

afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

describe("the daemon's directory", () => {
  it('publishes its signing key and the next one at /.well-known/jwks.json, without auth, and keeps the private ones 0600', async () => {
    const res = await fetch(`${baseUrl}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(2);
    expect(keys[1]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[1]).not.toHaveProperty('d');
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0]?.kid).toMatch(/^[\w-]{43}$/);
    expect(keys[0]).not.toHaveProperty('d');
    const file = join(t.home, 'directory-key.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The file holds the private key; the public one is its half.
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.private_jwk).toMatchObject({ x: keys[0]?.x, y: keys[0]?.y });
    expect(stored.private_jwk.d).toEqual(expect.any(String));
    expect(stored.next.private_jwk).toMatchObject({ x: keys[1]?.x, y: keys[1]?.y });
  });

  it('signs a token per call that the kit verifies: the caller is the node, for its group', async () => {
    const node = await createNode(t.call, {
      task: 'who am I to the plugin',
      model: scripted('dir', [toolCall('audit_log_whoami', {}), submit({ ok: true })]),
    });
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    const [whoami] = await toolResults(t.call, node.id, 1);
    expect(whoami).toMatchObject({ name: 'audit_log_whoami', status: 'ok' });
    const caller = whoami?.output as Record<string, unknown>;
    expect(caller).toMatchObject({
      grantee: 'svc',
      clientId: 'svc',
      scope: ['audit:log'],
      initiatingApp: 'svc',
      act: { sub: node.id },
    });
    expect(caller.sub).toEqual(expect.any(String));
    expect(caller.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(caller.requestId).toMatch(new RegExp(`^${node.id}:`));
    expect(caller).not.toHaveProperty('runId');
  });

  it('offers the plugin only to nodes whose scopes cover its group', async () => {
    const node = await createNode(t.call, {
      task: 'no audit',
      scopes: ['svc:llm'],
      model: scripted('narrow', [toolCall('audit_log_whoami', {}), submit({})]),
    });
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    const events = await t.call(`/v1/nodes/${node.id}/events?kinds=node.turn`);
    expect(JSON.stringify(await events.json())).toContain('unavailable tool');
  });

  it('answers the model an error naming the fix when its TCP listener, the issuer, is off', async () => {
    const off = await startTestDaemon({ brokers: { concurrency: 1 } });
    try {
      expect((await off.call('/v1/plugins', json({ endpoint, name: 'audit' }))).status).toBe(200);
      expect((await off.call('/v1/profiles/default', json({}, 'PUT'))).status).toBe(200);
      const node = await createNode(off.call, {
        task: 'no issuer',
        model: scripted('off', [toolCall('audit_log_whoami', {}), submit({})]),
      });
      expect(await waitForNode(off.call, node.id, isFinal)).toMatchObject({ state: 'done' });
      const [whoami] = await toolResults(off.call, node.id, 1);
      expect(whoami).toMatchObject({ status: 'error' });
      expect(String(whoami?.output)).toContain('TCP listener, which is off');
      expect(String(whoami?.output)).toContain('svc sys connect');
    } finally {
      await off.stop();
    }
  });

  it('says a damaged key file is unusable and how to mend it, never quoting it', async () => {
    const other = await startTestDaemon();
    const file = join(other.home, 'directory-key.json');
    try {
      const secret = 'd-SECRET-PART-of-a-key';
      writeFileSync(file, `{"private_jwk": {"d": "${secret}"`, { mode: 0o644 });
      const res = await other.call('/.well-known/jwks.json', { token: null });
      expect(res.status).toBe(409);
      const text = await res.text();
      expect(text).toContain('directory-key.json');
      expect(text).toContain('svc sys directory rotate --revoke-previous');
      expect(text).not.toContain('SECRET');
      expect(text).not.toContain(other.home);
      // A public key alone signs nothing: refused as well, not a 500 at the first mint.
      const { keys } = (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as {
        keys: Record<string, unknown>[];
      };
      writeFileSync(file, JSON.stringify({ private_jwk: keys[0], created_at: '' }));
      const publicOnly = await other.call('/.well-known/jwks.json', { token: null });
      expect(publicOnly.status).toBe(409);
      expect(await publicOnly.text()).toContain('holds no ES256 private key');
      // The file is left as it was, not rewritten around the damage.
      expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('next');
      for (const damaged of ['null', '[]', '"key"']) {
        writeFileSync(file, damaged);
        const res = await other.call('/.well-known/jwks.json', { token: null });
        expect(`${damaged} ${res.status}`).toBe(`${damaged} 409`);
      }
      // A usable key beside a list of retired keys that is not one: refused, and not rewritten.
      const usableKey = await exportJWK(
        (await generateKeyPair('ES256', { extractable: true })).privateKey,
      );
      const badRetired = JSON.stringify({
        private_jwk: usableKey,
        created_at: '2026-01-01T00:00:00.000Z',
        retired: 'junk',
      });
      writeFileSync(file, badRetired);
      const junk = await other.call('/.well-known/jwks.json', { token: null });
      expect(junk.status).toBe(409);
      expect(await junk.text()).toContain('retired key');
      expect(readFileSync(file, 'utf8')).toBe(badRetired);
      // A key copied in by hand without a time it was made: refused when read, not at rotation.
      writeFileSync(file, JSON.stringify({ private_jwk: usableKey, created_at: 'yesterday' }));
      const undated = await other.call('/.well-known/jwks.json', { token: null });
      expect(undated.status).toBe(409);
      expect(await undated.text()).toContain('without a valid created_at');
      // The fix it names: two new keys replace the file.
      const mended = await other.call('/v1/directory/keys/rotate', json({ revoke_previous: true }));
      expect(mended.status).toBe(200);
      expect((await other.call('/.well-known/jwks.json', { token: null })).status).toBe(200);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // Read again on the next call: a file moved away is made anew.
      rmSync(file);
      expect((await other.call('/.well-known/jwks.json', { token: null })).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  it('keeps its key across a restart, and each home has its own', async () => {
    const other = await startTestDaemon();
    const jwks = async (call: TestDaemon['call']) =>
      (await (await call('/.well-known/jwks.json', { token: null })).json()) as {
        keys: { kid: string }[];
      };
    try {
      const before = await jwks(other.call);
      expect(before.keys[0]?.kid).not.toBe((await jwks(t.call)).keys[0]?.kid);
      await other.daemon.close();
      const again = await startDaemon({ home: other.home, logLevel: 'warn' });
      try {
        expect(await jwks(socketFetch(again.socketPath, null))).toEqual(before);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(other.home, { recursive: true, force: true });
    }
  });
});

describe('directory key rotation', () => {
  type Key = {
    kid: string;
    state: string;
    created_at: string;
    retired_at: string | null;
    until: string | null;
  };
  const keysOf = async (call: TestDaemon['call']) => {
    const res = await call('/v1/directory/keys');
    expect(res.status).toBe(200);
    return ((await res.json()) as { keys: Key[] }).keys;
  };
  const kidsOf = async () =>
    ((await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: Key[] }).keys.map(
      (key) => key.kid,
    );
  const whoami = async (task: string) => {
    const node = await createNode(t.call, {
      task,
      model: scripted(task, [toolCall('audit_log_whoami', {}), submit({ ok: true })]),
    });
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    const [result] = await toolResults(t.call, node.id, 1);
    expect(result).toMatchObject({ name: 'audit_log_whoami', status: 'ok' });
  };

  it('signs with the key published ahead, so a plugin verifies at once; the old one stays 10 minutes', async () => {
    await whoami('before-rotation');
    const before = await keysOf(t.call);
    expect(before.map((key) => key.state)).toEqual(['active', 'next']);
    const fetches = jwksFetches;
    const res = await t.call('/v1/directory/keys/rotate', json({}));
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Key[] };
    expect(keys.map((key) => [key.kid, key.state])).toEqual([
      [before[1]?.kid, 'active'],
      [expect.any(String), 'next'],
      [before[0]?.kid, 'retiring'],
    ]);
    // Exactly the documented fields: never a private key, not even by another name.
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual([
        'created_at',
        'kid',
        'retired_at',
        'state',
        'until',
      ]);
    }
    const retiring = keys[2]!;
    expect(Date.parse(retiring.until!) - Date.parse(retiring.retired_at!)).toBe(RETIRING_MS);
    expect(await kidsOf()).toEqual(keys.map((key) => key.kid));
    expect(await keysOf(t.call)).toEqual(keys);
    // The plugin's cached key set already holds the new signing key: no refetch, no refusal.
    await whoami('after-rotation');
    expect(jwksFetches).toBe(fetches);
  });

  it("is the owner's: an app token is refused, and a bad body changes nothing", async () => {
    const { token } = await t.appToken(['svc:llm']);
    expect((await t.call('/v1/directory/keys', { token })).status).toBe(403);
    expect((await t.call('/v1/directory/keys/rotate', { ...json({}), token })).status).toBe(403);
    const before = await kidsOf();
    for (const body of [{ revoke_previous: 'yes' }, { revoke: true }, []]) {
      const res = await t.call('/v1/directory/keys/rotate', json(body));
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(((await res.json()) as { error: { code: string } }).error.code).toEqual(
        expect.any(String),
      );
    }
    expect(await kidsOf()).toEqual(before);
  });
});

describe('directoryKeys', () => {
  const home = () => mkdtempSync(join(tmpdir(), 'svc-directory-keys-'));
  const homes: string[] = [];
  afterAll(() => {
    for (const dir of homes) rmSync(dir, { recursive: true, force: true });
  });
  const kidOf = (token: string) => decodeProtectedHeader(token).kid;
  const claims = { sub: 'someone', exp: Math.floor(Date.now() / 1000) + 300 };

  it('retires the replaced key after RETIRING_MS, across restarts; revokePrevious publishes two new keys only', async () => {
    const dir = home();
    homes.push(dir);
    let clock = Date.now();
    const keys = directoryKeys(dir, { now: () => clock });
    const [active, next] = await keys.list();
    const before = await keys.sign(claims);
    expect(kidOf(before)).toBe(active?.kid);

    await keys.rotate({ revokePrevious: false });
    const after = await keys.sign(claims);
    expect(kidOf(after)).toBe(next?.kid);
    const published = createLocalJWKSet(await keys.jwks());
    await expect(jwtVerify(before, published)).resolves.toBeDefined();
    await expect(jwtVerify(after, published)).resolves.toBeDefined();
    // A restart reads the same keys and states; the file keeps only the public half of the old.
    expect(await directoryKeys(dir, { now: () => clock }).list()).toEqual(await keys.list());
    const file = JSON.parse(readFileSync(join(dir, 'directory-key.json'), 'utf8'));
    expect(file.retired).toHaveLength(1);
    expect(Object.keys(file.retired[0].public_jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);

    clock += RETIRING_MS;
    expect((await keys.jwks()).keys.map((key) => key.kid)).not.toContain(active?.kid);
    expect((await keys.list()).map((key) => key.state)).toEqual(['active', 'next']);
    await expect(jwtVerify(before, createLocalJWKSet(await keys.jwks()))).rejects.toThrow();

    await keys.rotate({ revokePrevious: true });
    const renewed = await keys.list();
    expect(renewed.map((key) => key.state)).toEqual(['active', 'next']);
    expect(renewed.map((key) => key.kid)).not.toContain(next?.kid);
    await expect(jwtVerify(after, createLocalJWKSet(await keys.jwks()))).rejects.toThrow();
    expect(statSync(join(dir, 'directory-key.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['directory-key.json']);
  });

  it('takes rotations one at a time: two at once retire one key each', async () => {
    const dir = home();
    homes.push(dir);
    const keys = directoryKeys(dir);
    const [first, second] = await keys.list();
    await Promise.all([
      keys.rotate({ revokePrevious: false }),
      keys.rotate({ revokePrevious: false }),
    ]);
    const listed = await keys.list();
    expect(listed.map((key) => key.state)).toEqual(['active', 'next', 'retiring', 'retiring']);
    expect(listed.slice(2).map((key) => key.kid)).toEqual([second?.kid, first?.kid]);
    expect(new Set(listed.map((key) => key.kid)).size).toBe(4);
  });

  it('never writes a revoked key back: a revocation racing the first read of an older home wins', async () => {
    const dir = home();
    homes.push(dir);
    const pair = await generateKeyPair('ES256', { extractable: true });
    const leaked = await calculateJwkThumbprint(await exportJWK(pair.publicKey));
    const file = join(dir, 'directory-key.json');
    const older = {
      private_jwk: await exportJWK(pair.privateKey),
      created_at: '2026-01-01T00:00:00.000Z',
    };
    writeFileSync(file, JSON.stringify(older), { mode: 0o600 });
    // The first key made (the older home's next key, in the first read) comes late, so that the
    // revocation asked for meanwhile would finish first and be written over, were they not queued.
    let made = 0;
    const makeKey = async () => {
      if (made++ === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const fresh = await generateKeyPair('ES256', { extractable: true });
      return {
        private_jwk: await exportJWK(fresh.privateKey),
        created_at: new Date().toISOString(),
      };
    };
    const keys = directoryKeys(dir, { makeKey });
    await Promise.all([keys.jwks(), keys.rotate({ revokePrevious: true })]);
    expect((await keys.jwks()).keys.map((key) => key.kid)).not.toContain(leaked);
    // As a restart reads the file.
    const kids = (await directoryKeys(dir).jwks()).keys.map((key) => key.kid);
    expect(kids).not.toContain(leaked);
    expect(kids).toEqual((await keys.jwks()).keys.map((key) => key.kid));
  });

  it('answers a write that fails with 409 naming no path, and leaves no private key behind', async () => {
    const dir = home();
    homes.push(dir);
    const keys = directoryKeys(dir);
    const before = await keys.list();
    // The key file's place taken by a directory: the rename over it fails.
    const file = join(dir, 'directory-key.json');
    rmSync(file);
    mkdirSync(file);
    const failed = keys.rotate({ revokePrevious: true });
    await expect(failed).rejects.toMatchObject({ code: 'invalid_state' });
    await expect(failed).rejects.toThrow(/cannot be written \(E[A-Z]+\)/);
    expect(String(await failed.catch((error: Error) => error.message))).not.toContain(dir);
    expect(readdirSync(dir)).toEqual(['directory-key.json']);
    // Nothing changed in memory either, and the next rotation is not blocked.
    expect(await keys.list()).toEqual(before);
    rmSync(file, { recursive: true });
    await expect(keys.rotate({ revokePrevious: true })).resolves.toHaveLength(2);
  });

  it('gives a home from before rotation its next key, and keeps the key it signed with', async () => {
    const dir = home();
    homes.push(dir);
    const pair = await generateKeyPair('ES256', { extractable: true });
    const file = join(dir, 'directory-key.json');
    writeFileSync(
      file,
      JSON.stringify({
        private_jwk: await exportJWK(pair.privateKey),
        created_at: '2026-01-01T00:00:00.000Z',
      }),
      { mode: 0o600 },
    );
    // As the daemon signed before: its header names the key by its thumbprint.
    const kid = await calculateJwkThumbprint(await exportJWK(pair.publicKey));
    const old = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(pair.privateKey);
    const keys = directoryKeys(dir);
    await expect(jwtVerify(old, createLocalJWKSet(await keys.jwks()))).resolves.toBeDefined();
    const listed = await keys.list();
    expect(listed[0]?.kid).toBe(kid);
    expect(listed.map((key) => [key.state, key.created_at])).toEqual([
      ['active', '2026-01-01T00:00:00.000Z'],
      ['next', expect.any(String)],
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8')).next.private_jwk.d).toEqual(expect.any(String));
  });
});

describe('broker.pluginToken.mint', () => {
  let d: NodesDaemon;
  let plugins: ReturnType<typeof serve>;
  let dirEndpoint = '';
  beforeAll(async () => {
    d = await startNodesDaemon();
    const handler = createFetchHandler(audit, {
      auth: { issuer: 'http://127.0.0.1:1', audience: 'http://127.0.0.1:1/p' },
    });
    const shared = createFetchHandler({ ...audit, name: 'acme' }, { token: 'tok-1' });
    plugins = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) =>
        new URL(request.url).pathname.startsWith('/shared') ? shared(request) : handler(request),
    });
    await new Promise<void>((resolve) => plugins.once('listening', () => resolve()));
    const origin = `http://127.0.0.1:${(plugins.address() as AddressInfo).port}`;
    dirEndpoint = `${origin}/dir`;
    expect((await d.post('/v1/plugins', { endpoint: dirEndpoint, name: 'audit' })).status).toBe(
      200,
    );
    const acme = { endpoint: `${origin}/shared`, name: 'acme', auth_env: 'T', token: 'tok-1' };
    expect((await d.post('/v1/plugins', acme)).status).toBe(200);
  });
  afterAll(async () => {
    await d?.stop();
    await new Promise((resolve) => plugins?.close(resolve));
  });

  const mint = (nodeId: string, body: unknown, as = nodeId) =>
    d.post(`/v1/nodes/${nodeId}/broker/plugin-token`, body, d.nodeToken(as));

  it('refuses what it must not sign, each with its own answer', async () => {
    const node = await d.createNode({ task: 'x' });
    const narrow = await d.createNode({ task: 'y', scopes: ['svc:llm'] });
    // The issuer is the TCP listener: off until asked for.
    expect((await mint(node.id, { plugin: 'audit', group: 'log' })).body.error).toMatchObject({
      code: 'invalid_state',
    });
    expect((await d.post('/v1/connect', {})).status).toBe(200);
    const cases: [string, unknown, number, Record<string, unknown>][] = [
      [
        narrow.id,
        { plugin: 'audit', group: 'log' },
        403,
        { code: 'scope_missing', field: 'audit:log', received: ['svc:llm'] },
      ],
      [
        node.id,
        { plugin: 'acme', group: 'log' },
        400,
        { code: 'invalid_request', field: 'plugin' },
      ],
      [node.id, { plugin: 'audit', group: 'nope' }, 404, { code: 'not_found', field: 'group' }],
      [node.id, { plugin: 'gone', group: 'log' }, 404, { code: 'not_found', field: 'plugin' }],
      // The scope first: a node that may not call it learns nothing of what is installed.
      [
        narrow.id,
        { plugin: 'gone', group: 'log' },
        403,
        { code: 'scope_missing', field: 'gone:log' },
      ],
      [node.id, { plugin: 'audit', group: 'log', extra: 1 }, 422, { code: 'validation_failed' }],
    ];
    for (const [id, body, status, error] of cases) {
      const res = await mint(id, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error).toMatchObject(error);
    }
    // Only a node's own broker may ask.
    expect((await mint(node.id, { plugin: 'audit', group: 'log' }, narrow.id)).status).toBe(403);
  });

  it("refuses a group the node's profile does not list among its tools", async () => {
    expect((await d.call('/v1/profiles/narrow', json({ tools: ['bash'] }, 'PUT'))).status).toBe(
      200,
    );
    const node = await d.createNode({ task: 'w', profile: 'narrow' });
    const res = await mint(node.id, { plugin: 'audit', group: 'log' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', field: 'group' });
  });

  it("names an app's node by its app, and its run", async () => {
    const { token: app } = await d.appToken(['svc:llm', 'audit:log']);
    const started = await d.post('/v1/runs', { task: 'audit', model: SCRIPTED }, app);
    expect(started.status).toBe(200);
    const res = await mint(started.body.node_id, { plugin: 'audit', group: 'log' });
    expect(res.status).toBe(200);
    const payload = JSON.parse(
      Buffer.from(String(res.body.token).split('.')[1] ?? '', 'base64url').toString('utf8'),
    );
    expect(payload).toMatchObject({
      grantee: 'test-app',
      initiating_app: 'test-app',
      run_id: started.body.id,
      act: { sub: started.body.node_id },
    });
  });

  it('signs for the node and the group: iss the listener, aud the endpoint as installed, 5 min', async () => {
    const node = await d.createNode({ task: 'z' });
    const res = await mint(node.id, { plugin: 'audit', group: 'log' });
    expect(res.status).toBe(200);
    const [header, payload] = String(res.body.token)
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
    const { keys } = (await (await d.call('/.well-known/jwks.json', { token: null })).json()) as {
      keys: { kid: string }[];
    };
    expect(header).toEqual({ alg: 'ES256', kid: keys[0]?.kid, typ: 'JWT' });
    expect(payload).toMatchObject({
      iss: d.daemon.tcp?.base_url,
      aud: dirEndpoint,
      scope: 'audit:log',
      act: { sub: node.id },
      client_id: 'svc',
    });
    expect(payload.exp - payload.iat).toBe(300);
    expect(res.body.expires_at).toBe(new Date(payload.exp * 1000).toISOString());
    expect(payload).not.toHaveProperty('run_id');
  });
});
