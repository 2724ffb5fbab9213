import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoff, retryDelay, shouldRetry } from '../src/core/retry.ts';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  InternalServerError,
  Svc,
} from '../src/index.ts';
import { envelope, json, rejection, ScriptedServer } from './helpers/server.ts';

const server = new ScriptedServer();
let client: Svc;

beforeAll(async () => {
  client = new Svc({ baseUrl: await server.listen(), token: 'svc_owner_test' });
});
afterAll(() => server.close());

/** Fails the first `failures` requests with `status` (a quick retry-after-ms), then answers 200. */
function failThenOk(failures: number, status: number, headers: Record<string, string> = {}) {
  server.reset((_req, res, i) =>
    i < failures
      ? json(res, status, envelope('x', 'try again'), { 'retry-after-ms': '10', ...headers })
      : json(res, 200, { ok: true, attempt: i }),
  );
}

describe('retries', () => {
  it.each([408, 409, 429, 500, 503])('retries %i and then succeeds', async (status) => {
    failThenOk(2, status);
    await expect(client.system.status()).resolves.toEqual({ ok: true, attempt: 2 });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries (default 2) with the last error', async () => {
    failThenOk(10, 500);
    const error = await rejection(client.system.status());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(3);
  });

  it.each([400, 401, 403, 404, 422])('does not retry %i', async (status) => {
    failThenOk(10, status);
    await expect(client.system.status()).rejects.toMatchObject({ status });
    expect(server.requests).toHaveLength(1);
  });

  it('honours x-should-retry both ways', async () => {
    failThenOk(1, 400, { 'x-should-retry': 'true' });
    await expect(client.system.status()).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(2);

    failThenOk(10, 503, { 'x-should-retry': 'false' });
    await expect(client.system.status()).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });

  it('respects per-call and per-client maxRetries', async () => {
    failThenOk(10, 500);
    await expect(client.system.status({ maxRetries: 0 })).rejects.toMatchObject({ status: 500 });
    expect(server.requests).toHaveLength(1);

    failThenOk(4, 500);
    const patient = new Svc({ baseUrl: client.baseUrl, maxRetries: 4 });
    await expect(patient.system.status()).resolves.toMatchObject({ attempt: 4 });
    expect(server.requests).toHaveLength(5);
  });

  it('waits what retry-after-ms says', async () => {
    failThenOk(1, 429, { 'retry-after-ms': '250' });
    const started = performance.now();
    await client.system.status();
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('sends Svc-Retry-Count on retries only', async () => {
    failThenOk(2, 500);
    await client.system.status();
    expect(server.requests.map((r) => r.headers['svc-retry-count'])).toEqual([undefined, '1', '2']);
  });
});

describe('idempotency keys', () => {
  it('sends one svc-retry-<uuid> key on every attempt of a non-GET call', async () => {
    failThenOk(2, 503);
    await client.request('POST', '/v1/things', { a: 1 });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(
      /^svc-retry-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(server.requests.map((r) => r.body)).toEqual(Array(3).fill('{"a":1}'));
  });

  it('uses a new key per call, none on GET, and lets the caller choose one', async () => {
    failThenOk(0, 200);
    await client.request('DELETE', '/v1/things/1');
    await client.request('DELETE', '/v1/things/1');
    await client.request('GET', '/v1/things');
    await client.request('PUT', '/v1/things/1', {}, { headers: { 'Idempotency-Key': 'mine' } });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).not.toEqual(keys[1]);
    expect(keys[2]).toBeUndefined();
    expect(keys[3]).toBe('mine');
  });
});

describe('connection failures, timeouts, aborts', () => {
  it('retries a connection error and then throws APIConnectionError with a cause', async () => {
    const dead = new ScriptedServer();
    const url = await dead.listen();
    await dead.close();
    const error = await rejection(new Svc({ baseUrl: url, maxRetries: 1 }).system.status());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.code).toBe('connection_error');
    expect(error.cause).toBeDefined();
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('retries a connection dropped before the answer', async () => {
    server.reset((_req, res, i) => (i === 0 ? res.destroy() : json(res, 200, { ok: true })));
    await expect(client.system.status()).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it('times out each attempt, retries, then throws APIConnectionTimeoutError', async () => {
    server.reset(() => {}); // never answers
    const error = await rejection(client.system.status({ timeout: 50, maxRetries: 1 }));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error.code).toBe('connection_timeout');
    expect(server.requests).toHaveLength(2);
  });

  it('covers a stalled body with the timeout too', async () => {
    server.reset((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":');
    });
    const error = await rejection(client.system.status({ timeout: 100, maxRetries: 0 }));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('turns a caller abort into APIUserAbortError and never retries it', async () => {
    server.reset(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(client.system.status({ signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.code).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('stops waiting for a retry as soon as the caller aborts', async () => {
    failThenOk(10, 503, { 'retry-after-ms': '5000' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await expect(client.system.status({ signal: controller.signal })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    server.reset((_req, res) => json(res, 200, {}));
    await expect(client.system.status({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('retry policy', () => {
  const h = (init: Record<string, string>) => new Headers(init);

  it('decides by status unless x-should-retry says otherwise', () => {
    expect([408, 409, 429, 500, 502].every((s) => shouldRetry(s, h({})))).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some((s) => shouldRetry(s, h({})))).toBe(false);
    expect(shouldRetry(400, h({ 'x-should-retry': 'true' }))).toBe(true);
    expect(shouldRetry(500, h({ 'x-should-retry': 'false' }))).toBe(false);
  });

  it('reads retry-after-ms, then Retry-After seconds or HTTP date, within (0, 60 s]', () => {
    expect(retryDelay(0, h({ 'retry-after-ms': '1234' }))).toBe(1234);
    expect(retryDelay(0, h({ 'retry-after-ms': '20', 'retry-after': '9' }))).toBe(20);
    expect(retryDelay(0, h({ 'retry-after': '3' }))).toBe(3000);
    const date = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = retryDelay(0, h({ 'retry-after': date }));
    expect(fromDate).toBeGreaterThan(8_000);
    expect(fromDate).toBeLessThanOrEqual(10_000);
    // Out of range or unparsable: the backoff (≤ 0.5 s for the first retry).
    for (const value of ['0', '61', '-1', 'soon', new Date(Date.now() - 5000).toUTCString()]) {
      expect(retryDelay(0, h({ 'retry-after': value }))).toBeLessThanOrEqual(500);
    }
    expect(retryDelay(0, h({ 'retry-after-ms': '60001' }))).toBeLessThanOrEqual(500);
  });

  it('backs off 0.5 s × 2ⁿ capped at 8 s, minus up to 25 % jitter', () => {
    const expected = [500, 1000, 2000, 4000, 8000, 8000];
    for (const [n, full] of expected.entries()) {
      for (let i = 0; i < 50; i++) {
        const delay = backoff(n);
        expect(delay).toBeLessThanOrEqual(full);
        expect(delay).toBeGreaterThanOrEqual(full * 0.75);
      }
    }
  });
});
