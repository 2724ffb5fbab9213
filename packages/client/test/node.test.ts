import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { homePaths } from '@svc/protocol/home';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalClient, NotFoundError, Svc, SvcError } from '../src/node.ts';
import { envelope, json, ScriptedServer } from './helpers/server.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-c-'));
const server = new ScriptedServer();

beforeAll(async () => {
  writeFileSync(homePaths(home).ownerToken, 'svc_owner_local\n', { mode: 0o600 });
  await server.listen(homePaths(home).socket);
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});
afterEach(() => vi.unstubAllEnvs());

describe('the Node subpath', () => {
  it('refuses a fetch without a baseUrl: the local socket has its own, which would set it aside', () => {
    vi.stubEnv('SVC_BASE_URL', '');
    expect(() => new Svc({ home, fetch: () => Promise.reject(new Error('unused')) })).toThrow(
      /options\.fetch needs options\.baseUrl/,
    );
  });
});

describe('createLocalClient', () => {
  it('talks HTTP over the home socket with the owner token', async () => {
    server.reset((req, res) => json(res, 200, { url: req.url }));
    const client = createLocalClient({ home });
    expect(client).toBeInstanceOf(Svc);
    await expect(client.system.status()).resolves.toEqual({ url: '/v1/status' });
    expect(server.requests[0]?.headers).toMatchObject({
      host: 'localhost',
      authorization: 'Bearer svc_owner_local',
    });
  });

  it('finds the home through SVC_HOME and shares retries, errors and streams', async () => {
    vi.stubEnv('SVC_HOME', home);
    const client = createLocalClient({ maxRetries: 1 });
    server.reset((_req, res, i) =>
      i === 0
        ? json(res, 503, envelope('not_ready', 'wait'), { 'retry-after-ms': '10' })
        : json(res, 404, envelope('not_found', 'no such token')),
    );
    await expect(client.request('DELETE', '/v1/tokens/tok_x')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(server.requests).toHaveLength(2);

    server.reset((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: {"seq":1}\n\n');
    });
    for await (const event of client.events.stream()) {
      expect(event).toEqual({ seq: 1 });
      break;
    }
  });

  it('says how to start a daemon when the home has no owner token', () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-e-'));
    try {
      expect(() => createLocalClient({ home: empty })).toThrow(SvcError);
      expect(() => createLocalClient({ home: empty })).toThrow(/svc daemon start/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('new Svc() from the Node subpath (DESIGN §7)', () => {
  it('with no base URL, talks to the local daemon of SVC_HOME with its owner token', async () => {
    vi.stubEnv('SVC_HOME', home);
    vi.stubEnv('SVC_BASE_URL', '');
    vi.stubEnv('SVC_TOKEN', '');
    server.reset((req, res) => json(res, 200, { url: req.url }));
    const client = new Svc();
    await expect(client.system.status()).resolves.toEqual({ url: '/v1/status' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer svc_owner_local');
  });

  it('sends SVC_TOKEN, or the token given, over the socket instead of the owner token', async () => {
    vi.stubEnv('SVC_HOME', home);
    vi.stubEnv('SVC_BASE_URL', '');
    vi.stubEnv('SVC_TOKEN', 'svc_app_from_env');
    server.reset((req, res) => json(res, 200, { url: req.url }));
    await new Svc().system.status();
    await new Svc({ token: 'svc_app_given' }).system.status();
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer svc_app_from_env',
      'Bearer svc_app_given',
    ]);
  });

  it('with a base URL, option or SVC_BASE_URL, goes there and not to the socket', () => {
    vi.stubEnv('SVC_HOME', '/nonexistent-home');
    expect(new Svc({ baseUrl: 'http://127.0.0.1:9/', token: 't' }).baseUrl).toBe(
      'http://127.0.0.1:9',
    );
    vi.stubEnv('SVC_BASE_URL', 'http://127.0.0.1:8/');
    expect(new Svc({ token: 't' }).baseUrl).toBe('http://127.0.0.1:8');
  });

  it('says how to start a daemon when there is no base URL and no local daemon', () => {
    vi.stubEnv('SVC_BASE_URL', '');
    const empty = mkdtempSync(join(tmpdir(), 'svc-e-'));
    try {
      expect(() => new Svc({ home: empty })).toThrow(/svc daemon start/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('is the default export, with the error classes on it, as the Stainless SDKs have', async () => {
    const main = await import('../src/index.ts');
    const node = await import('../src/node.ts');
    expect(main.default).toBe(main.Svc);
    expect(node.default).toBe(Svc);
    expect(new node.default({ home })).toBeInstanceOf(main.Svc);
    expect(main.Svc.NotFoundError).toBe(NotFoundError);
    expect(Svc.NotFoundError).toBe(NotFoundError);
    expect(main.Svc.APIError).toBe(main.APIError);
    server.reset((_req, res) => json(res, 404, envelope('not_found', 'no such node')));
    await expect(
      new node.default({ home, maxRetries: 0 }).request('GET', '/v1/nodes/x'),
    ).rejects.toBeInstanceOf(node.default.NotFoundError);
  });
});
