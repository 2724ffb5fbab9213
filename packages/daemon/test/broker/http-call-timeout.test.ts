/**
 * A broker's call to the daemon has a time limit and a caller's stop: a daemon that never
 * answers ends the call as `AbortSignal.timeout` did (an `AbortError` caused by a
 * `TimeoutError`), and a stopped long poll ends as an `AbortError` (what `loop-directive.ts`
 * tells from a fault). The limit is a plain timer now, not a signal made per call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBrokerCaller } from '../../src/broker/http-call.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-call-'));
const socketPath = join(dir, 'd.sock');
const held: ServerResponse[] = [];
let answering = false;
const server = createServer((req, res) => {
  req.resume();
  if (!answering) {
    held.push(res); // never answered
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
await new Promise<void>((resolve) => server.listen(socketPath, resolve));
afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const caller = (timeoutMs: number) =>
  createBrokerCaller({
    socketPath,
    nodeId: 'node_0123456789abcdef01234567',
    token: 'svc_node_test',
    timeoutMs,
  });

describe('a broker call', () => {
  it('ends with an AbortError caused by a TimeoutError when the daemon never answers', async () => {
    answering = false;
    const { call, close } = caller(100);
    const error: unknown = await call('broker.claim', z.unknown()).then(
      () => null,
      (e: unknown) => e,
    );
    close();
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('AbortError');
    expect(((error as Error).cause as Error).name).toBe('TimeoutError');
    expect(held.length).toBeGreaterThan(0);
  });

  it('ends with an AbortError when its caller stops it', async () => {
    answering = false;
    const { call, close } = caller(60_000);
    const stop = new AbortController();
    const inFlight = call('broker.claim', z.unknown(), { signal: stop.signal });
    const seen = held.length;
    await new Promise<void>((resolve) => {
      const check = () => (held.length > seen ? resolve() : setImmediate(check));
      check();
    });
    stop.abort();
    await expect(inFlight).rejects.toMatchObject({ name: 'AbortError' });
    close();
  });

  it('answers within its limit on the same connection, one call after another', async () => {
    answering = true;
    const { call, close } = caller(60_000);
    for (let i = 0; i < 3; i++) {
      await expect(call('broker.claim', z.unknown())).resolves.toEqual({ ok: true });
    }
    close();
  });
});
