/** `client.models` and `client.profiles` against a real daemon over its unix socket. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalClient,
  NotFoundError,
  PermissionDeniedError,
  type Profile,
  type Svc,
} from '../src/node.ts';

const KEY = 'sk-ant-client-test-0123456789abcdef';
let home: string;
let daemon: DaemonHandle;
let client: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cm-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  client = createLocalClient({ home });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('client.models.credentials', () => {
  it('installs, lists without the key, removes', async () => {
    const installed = await client.models.credentials.install('anthropic', { api_key: KEY });
    expect(installed).toMatchObject({ provider: 'anthropic', has_key: true, base_url: null });
    const list = await client.models.credentials.list();
    expect(JSON.stringify(list)).not.toContain(KEY.slice(0, 8));
    expect(list.data.map((c) => c.provider)).toEqual(['anthropic']);
    await expect(client.models.credentials.remove('anthropic')).resolves.toEqual({ ok: true });
    await expect(client.models.credentials.remove('anthropic')).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('checks the provider before any request', () => {
    expect(() => client.models.credentials.install('Not/Valid' as never, {})).toThrow(
      /provider must be a provider name/,
    );
  });
});

describe('client.models.config', () => {
  it('updates and retrieves', async () => {
    const body = { default: { provider: 'scripted' as const, model: 'demo' } };
    await expect(client.models.config.update(body)).resolves.toMatchObject({
      ...body,
      profiles: {},
    });
    await expect(client.models.config.retrieve()).resolves.toMatchObject(body);
  });
});

describe('client.profiles', () => {
  it('ensure, retrieve, list; the env store only through client.request', async () => {
    const created = await client.profiles.ensure('writer', { system_prompt: 'You write.' });
    expect(created).toMatchObject({ name: 'writer', system_prompt: 'You write.', env: [] });
    await expect(client.profiles.retrieve('writer')).resolves.toEqual(created);
    const list = await client.profiles.list({ limit: 10 });
    expect(list.data.map((p) => p.name)).toEqual(['default', 'writer']);

    // The env store takes secrets: no client method (SPEC: credentials.install is the only one
    // that accepts credential material), the raw request reaches it.
    expect('env' in client.profiles).toBe(false);
    const withEnv = (await client.request('PUT', '/v1/profiles/writer/env/API_TOKEN', {
      value: 'secret-value-123',
    })) as Profile;
    expect(withEnv.env.map((e) => e.name)).toEqual(['API_TOKEN']);
    expect(JSON.stringify(withEnv)).not.toContain('secret-value-123');
    const without = (await client.request(
      'DELETE',
      '/v1/profiles/writer/env/API_TOKEN',
    )) as Profile;
    expect(without.env).toEqual([]);
    await expect(client.profiles.retrieve('nobody')).rejects.toBeInstanceOf(NotFoundError);
  });

  it("an app may not change the owner's profile", async () => {
    const { Svc } = await import('../src/index.ts');
    const tcp = await daemon.enableTcp();
    const connect = (await client.request('POST', '/v1/connect', {
      app_id: 'app-one',
      scopes: ['svc:llm'],
    })) as { token: string };
    const app = new Svc({ baseUrl: tcp.base_url, token: connect.token, maxRetries: 0 });
    await expect(app.profiles.ensure('default', { description: 'x' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    await expect(app.profiles.ensure('app-one-bot')).resolves.toMatchObject({ app_id: 'app-one' });
  });

  it('checks names before any request', () => {
    expect(() => client.profiles.retrieve('Bad Name')).toThrow(/name must be a profile name/);
  });
});
