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
