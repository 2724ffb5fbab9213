import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { statusResponseSchema } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_VERSION } from '../src/version.ts';
import { json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';

const newDir = scratchDirs('svcd-status-');
let t: TestDaemon;
let dist = '';
beforeAll(async () => {
  dist = join(newDir(), 'dist');
  t = await startTestDaemon({ tcp: false, viewer: { dist } });
});
afterAll(() => t.stop());

const status = async () => {
  const res = await t.call('/v1/status');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  return statusResponseSchema.parse(await res.json());
};

describe('GET /v1/status', () => {
  it('names the daemon, its home, socket, listener and brokers', async () => {
    expect(await status()).toEqual({
      status: 'ready',
      version: DAEMON_VERSION,
      pid: process.pid,
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      uptime_s: expect.any(Number),
      home: t.home,
      socket_path: t.daemon.socketPath,
      tcp: null,
      brokers: { concurrency: expect.any(Number), active: 0, queued: 0 },
      viewer: { url: null, built: false },
      sandbox: {
        mode: 'on',
        ready: true,
        tool: expect.stringMatching(/^bubblewrap /),
        reason: null,
        fix: null,
        network: 'none',
        limits: { pids: 512, memory_bytes: expect.any(Number), by: expect.any(String) },
      },
    });
  });

  it('follows the TCP listener once it is turned on, and the uptime as it passes', async () => {
    const before = await status();
    const connected = await t.call('/v1/connect', json({}));
    const { base_url } = (await connected.json()) as { base_url: string };
    const after = await status();
    expect(after.tcp).toMatchObject({ host: '127.0.0.1', base_url });
    expect(after.viewer.url).toBe(`${base_url}/viewer/`);
    expect(after.started_at).toBe(before.started_at);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await status()).uptime_s).toBeGreaterThan(before.uptime_s);
  });

  it('says whether the viewer is built, reading the build as it comes and goes', async () => {
    expect((await status()).viewer.built).toBe(false);
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>svc</title>');
    expect((await status()).viewer.built).toBe(true);
    rmSync(dist, { recursive: true });
    expect((await status()).viewer.built).toBe(false);
  });
});
