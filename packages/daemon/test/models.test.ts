import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonLog, envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
let app: string;
beforeAll(async () => {
  t = await startTestDaemon({ logLevel: 'debug' });
  app = (await t.appToken(['svc:llm'])).token;
});
afterAll(() => t.stop());

const KEY = 'sk-ant-test-0123456789abcdefghijKLMNOPQRSTUVWXYZ';

interface Readiness {
  providers: {
    provider: string;
    ready: boolean;
    reason?: string;
    label: string;
    has_credentials: boolean;
    offline: boolean;
    checked_at: string | null;
  }[];
  default: { provider: string; model: string } | null;
  default_ready: boolean;
}

async function readiness(token?: string): Promise<Readiness> {
  const res = await t.call('/v1/model-auth/readiness', token === undefined ? {} : { token });
  expect(res.status).toBe(200);
  return (await res.json()) as Readiness;
}

const providerOf = (r: Readiness, id: string) => r.providers.find((p) => p.provider === id)!;

/** No part of the key: not whole, not its first or last characters. */
function expectNoKey(text: string, key = KEY): void {
  expect(text).not.toContain(key);
  expect(text).not.toContain(key.slice(0, 8));
  expect(text).not.toContain(key.slice(-6));
}

describe('readiness', () => {
  it('scripted is always ready and says it is not a real model; keyed providers say what they lack', async () => {
    const r = await readiness(app);
    expect(r.providers.map((p) => p.provider)).toEqual([
      'anthropic',
      'openai',
      'openai-compatible',
      'scripted',
    ]);
    expect(providerOf(r, 'scripted')).toMatchObject({
      ready: true,
      offline: true,
      has_credentials: true,
      label: 'Scripted replay (offline, deterministic; not a real model)',
    });
    expect(providerOf(r, 'anthropic')).toMatchObject({
      ready: false,
      has_credentials: false,
      checked_at: null,
    });
    expect(providerOf(r, 'anthropic').reason).toMatch(/svc models install anthropic/);
    expect(providerOf(r, 'openai-compatible').reason).toMatch(/--base-url/);
    expect(r).toMatchObject({ default: null, default_ready: false });
  });
});

describe('credentials', () => {
  it('refuses an install without what the provider needs', async () => {
    const noKey = await t.call('/v1/model-auth/anthropic', json({}));
    expect(noKey.status).toBe(400);
    expect(await envelope(noKey)).toMatchObject({ code: 'invalid_request', field: 'api_key' });
    const noUrl = await t.call('/v1/model-auth/openai-compatible', json({ api_key: 'x' }));
    expect(await envelope(noUrl)).toMatchObject({ code: 'invalid_request', field: 'base_url' });
    const scripted = await t.call('/v1/model-auth/scripted', json({ api_key: 'x' }));
    expect(scripted.status).toBe(422);
    const spaced = await t.call('/v1/model-auth/openai', json({ api_key: 'two words' }));
    expect(await envelope(spaced)).toMatchObject({ code: 'validation_failed' });
    // A base URL is answered in lists and events: no secret may ride in it, and none could work.
    for (const base_url of [
      'http://user:pa55word@127.0.0.1:11434/v1',
      'http://127.0.0.1:11434/v1?key=topsecret',
      'http://127.0.0.1:11434/v1#frag',
    ]) {
      const res = await t.call('/v1/model-auth/openai-compatible', json({ base_url }));
      expect(res.status, base_url).toBe(422);
      const error = await envelope(res);
      expect(error).toMatchObject({ code: 'validation_failed', field: 'base_url' });
      expect(JSON.stringify(error)).not.toMatch(/pa55word|topsecret/);
    }
    const listed = (await (await t.call('/v1/model-auth')).json()) as { data: unknown[] };
    expect(JSON.stringify(listed)).not.toMatch(/pa55word|topsecret/);
  });

  it('installs a key and never answers any part of it', async () => {
    const res = await t.call('/v1/model-auth/anthropic', json({ api_key: KEY }));
    expect(res.status).toBe(200);
    const text = await res.text();
    expectNoKey(text);
    expect(JSON.parse(text)).toEqual({
      provider: 'anthropic',
      has_key: true,
      base_url: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const list = await t.call('/v1/model-auth');
    const listText = await list.text();
    expectNoKey(listText);
    expect(JSON.parse(listText).data).toEqual([
      expect.objectContaining({ provider: 'anthropic', has_key: true }),
    ]);
    expect(providerOf(await readiness(), 'anthropic')).toMatchObject({
      ready: true,
      has_credentials: true,
    });
  });

  it('openai-compatible is ready with a base URL alone', async () => {
    const res = await t.call(
      '/v1/model-auth/openai-compatible',
      json({ base_url: 'http://127.0.0.1:11434/v1' }),
    );
    expect(await res.json()).toMatchObject({
      has_key: false,
      base_url: 'http://127.0.0.1:11434/v1',
    });
    expect(providerOf(await readiness(), 'openai-compatible').ready).toBe(true);
  });

  it("is the owner's alone", async () => {
    for (const [path, init] of [
      ['/v1/model-auth', {}],
      ['/v1/model-auth/openai', json({ api_key: 'sk-x' })],
      ['/v1/model-auth/anthropic', { method: 'DELETE' }],
    ] as const) {
      const res = await t.call(path, { ...init, token: app });
      expect(res.status, path).toBe(403);
      expect((await envelope(res)).code).toBe('forbidden');
    }
  });

  it('removes, then answers 404 for what is not installed', async () => {
    const res = await t.call('/v1/model-auth/openai-compatible', { method: 'DELETE' });
    expect(await res.json()).toEqual({ ok: true });
    const again = await t.call('/v1/model-auth/openai-compatible', { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(await envelope(again)).toMatchObject({ code: 'not_found', field: 'provider' });
    expect(providerOf(await readiness(), 'openai-compatible').ready).toBe(false);
  });
});

describe('model config', () => {
  it('any token reads it; only the owner replaces it; readiness reports the default', async () => {
    expect(await (await t.call('/v1/model-config', { token: app })).json()).toEqual({
      default: null,
      profiles: {},
      updated_at: null,
    });
    const body = {
      default: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      profiles: { local: { provider: 'openai-compatible', model: 'llama3.2' } },
    };
    const denied = await t.call('/v1/model-config', { ...json(body, 'PUT'), token: app });
    expect(denied.status).toBe(403);
    const res = await t.call('/v1/model-config', json(body, 'PUT'));
    expect(await res.json()).toEqual({ ...body, updated_at: expect.any(String) });
    const r = await readiness(app);
    expect(r).toMatchObject({ default: body.default, default_ready: true });
    // A PUT replaces the whole configuration: profiles omitted means none.
    const cleared = await t.call('/v1/model-config', json({ default: null }, 'PUT'));
    expect(await cleared.json()).toMatchObject({ default: null, profiles: {} });
    const bad = await t.call(
      '/v1/model-config',
      json({ default: { provider: 'nobody', model: 'x' } }, 'PUT'),
    );
    expect(await envelope(bad)).toMatchObject({ code: 'validation_failed' });
  });
});

describe('secrets at rest', () => {
  it('the key is in svc.db (0600) only where it is needed: not in events, idempotency or the log', async () => {
    const headers = { 'idempotency-key': 'install-openai-1' };
    const secret = 'sk-proj-SECRET-abcdefghijklmnopqrstuvwxyz012345';
    const first = await t.call(
      '/v1/model-auth/openai',
      json({ api_key: secret, base_url: 'https://api.openai.com/v1' }, 'POST', headers),
    );
    expect(first.status).toBe(200);
    const firstText = await first.text();
    const replay = await t.call(
      '/v1/model-auth/openai',
      json({ api_key: secret, base_url: 'https://api.openai.com/v1' }, 'POST', headers),
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstText);
    expectNoKey(firstText, secret);

    const dbFile = join(t.home, 'svc.db');
    expect(statSync(dbFile).mode & 0o777).toBe(0o600);
    expect(statSync(t.home).mode & 0o777).toBe(0o700);
    const db = new DatabaseSync(dbFile, { readOnly: true });
    try {
      const dump = (sql: string) => JSON.stringify(db.prepare(sql).all());
      expect(dump("SELECT api_key FROM model_credentials WHERE provider = 'openai'")).toContain(
        secret,
      );
      const events = dump('SELECT * FROM events');
      expect(events).toContain('model_auth.installed');
      expectNoKey(events, secret);
      expectNoKey(events);
      const idem = dump('SELECT * FROM idempotency_keys');
      expect(idem).toContain('install-openai-1');
      expectNoKey(idem, secret);
    } finally {
      db.close();
    }
    const log = await daemonLog(t.home);
    expect(log).toContain('/v1/model-auth/openai');
    expectNoKey(log, secret);
    expectNoKey(log);
  });
});
