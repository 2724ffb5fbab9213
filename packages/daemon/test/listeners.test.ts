import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../src/index.ts';
import { rawRequest, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
let tcp: { host: string; port: number };

beforeAll(async () => {
  t = await startTestDaemon({ tcp: { port: 0 } });
  tcp = { host: '127.0.0.1', port: t.daemon.tcp!.port };
});
afterAll(() => t.stop());

describe('home and socket', () => {
  it('creates the socket 0600 and the home 0700', () => {
    expect(statSync(t.daemon.socketPath).isSocket()).toBe(true);
    expect(statSync(t.daemon.socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(t.home).mode & 0o777).toBe(0o700);
    expect(statSync(`${t.home}/owner.token`).mode & 0o777).toBe(0o600);
  });

  it('keeps owner.token 0600 across restarts, a loosened or tampered one too', async () => {
    const other = await startTestDaemon();
    const file = `${other.home}/owner.token`;
    await other.daemon.close();
    chmodSync(file, 0o644); // loosened, still valid: the same token, tightened
    let again = await startDaemon({ home: other.home, logLevel: 'warn' });
    expect(readFileSync(file, 'utf8').trim()).toBe(other.ownerToken);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await again.close();
    writeFileSync(file, 'garbage\n');
    chmodSync(file, 0o644); // tampered and loose: a fresh token, in a 0600 file
    again = await startDaemon({ home: other.home, logLevel: 'warn' });
    expect(readFileSync(file, 'utf8').trim()).not.toBe('garbage');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await again.close();
    rmSync(other.home, { recursive: true, force: true });
  });

  it('accepts Host localhost or none on the socket, nothing else', async () => {
    const socket = { socketPath: t.daemon.socketPath };
    expect((await rawRequest(socket, { path: '/healthz', setHost: false })).status).toBe(200);
    expect(
      (await rawRequest(socket, { path: '/healthz', headers: { Host: 'localhost' } })).status,
    ).toBe(200);
    const evil = await rawRequest(socket, { path: '/healthz', headers: { Host: 'evil.example' } });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.code).toBe('forbidden');
  });
});

describe('TCP listener', () => {
  it('is bound to 127.0.0.1 by default', () => {
    expect(t.daemon.tcp).toMatchObject({
      host: '127.0.0.1',
      base_url: `http://127.0.0.1:${tcp.port}`,
    });
  });

  it('answers loopback Host names with the right port', async () => {
    for (const host of [`127.0.0.1:${tcp.port}`, `localhost:${tcp.port}`, `[::1]:${tcp.port}`]) {
      const res = await rawRequest(tcp, { path: '/v1/health', headers: { Host: host } });
      expect(res.status, host).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ ok: true });
    }
  });

  it('refuses a foreign Host (DNS rebinding) and a wrong port with 403', async () => {
    for (const host of [`evil.example:${tcp.port}`, 'localhost', `127.0.0.1:${tcp.port + 1}`]) {
      const res = await rawRequest(tcp, { path: '/v1/health', headers: { Host: host } });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body).error).toMatchObject({ code: 'forbidden', field: 'Host' });
      expect(res.headers['svc-request-id']).toBeTruthy();
    }
  });

  it('judges an absolute-form target by its authority, which replaces Host (RFC 9112 §3.2.2)', async () => {
    const local = `127.0.0.1:${tcp.port}`;
    const foreign = await rawRequest(tcp, {
      path: `http://evil.example:${tcp.port}/v1/health`,
      headers: { Host: local },
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error).toMatchObject({ code: 'forbidden', field: 'Host' });
    const own = await rawRequest(tcp, {
      path: `http://${local}/v1/health`,
      headers: { Host: `evil.example:${tcp.port}` },
    });
    expect(own.status).toBe(200);
  });

  it('connect refuses a host that is no IP address or localhost as such, while the listener is on', async () => {
    const res = await t.call('/v1/connect', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: 'named-host', host: 'example.com' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      code: 'invalid_request',
      field: 'host',
    });
  });

  it('enableTcp is idempotent and refuses a different port', async () => {
    expect(await t.daemon.enableTcp()).toEqual(t.daemon.tcp);
    await expect(t.daemon.enableTcp({ port: tcp.port === 65000 ? 65001 : 65000 })).rejects.toThrow(
      /already on/,
    );
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    rawRequest(tcp, {
      method: 'OPTIONS',
      path: '/v1/status',
      headers: {
        Host: `127.0.0.1:${tcp.port}`,
        Origin: origin,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });

  it("allows the daemon's own origin", async () => {
    for (const origin of [`http://127.0.0.1:${tcp.port}`, `http://localhost:${tcp.port}`]) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      // Every header @svc/client sends, a retry's count included, or a browser's retry fails.
      const allowed = String(res.headers['access-control-allow-headers']).split(', ');
      for (const header of [
        'Authorization',
        'Content-Type',
        'Idempotency-Key',
        'Last-Event-ID',
        'Svc-Request-Id',
        'Svc-Retry-Count',
      ]) {
        expect(allowed).toContain(header);
      }
    }
    const get = await rawRequest(tcp, {
      path: '/v1/health',
      headers: { Host: `127.0.0.1:${tcp.port}`, Origin: `http://localhost:${tcp.port}` },
    });
    expect(get.headers['access-control-allow-origin']).toBe(`http://localhost:${tcp.port}`);
    // What the client reads to pace and stop its retries.
    expect(String(get.headers['access-control-expose-headers']).split(', ')).toEqual(
      expect.arrayContaining(['Svc-Request-Id', 'Retry-After', 'X-Should-Retry']),
    );
  });

  it('gives any other origin no CORS headers', async () => {
    const res = await preflight('http://evil.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    const get = await rawRequest(tcp, {
      path: '/v1/health',
      headers: { Host: `127.0.0.1:${tcp.port}`, Origin: 'http://evil.example' },
    });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('POST /v1/connect', () => {
  it('answers the base URL of the running TCP listener with the owner token', async () => {
    const res = await t.call('/v1/connect', { method: 'POST' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      base_url: t.daemon.tcp!.base_url,
      token: t.ownerToken,
      app_id: null,
      scopes: null,
    });
  });

  it('a minted app token works over TCP', async () => {
    const { token } = await t.appToken(['svc:llm']);
    const res = await rawRequest(tcp, {
      path: '/v1/grant',
      headers: { Host: `localhost:${tcp.port}`, Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'app',
      app_id: 'test-app',
      scopes: ['svc:llm'],
    });
  });
});

/** Writes `raw` to the daemon's socket and answers all it sends back before closing. */
function rawExchange(socketPath: string, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.write(raw));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

describe('HTTP that node cannot parse', () => {
  it('is refused with the envelope and a Svc-Request-Id, 400 or 431', async () => {
    const cases = [
      ['GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n', 400],
      ['GET /a b HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
      [
        'POST /v1/connect HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}',
        400,
      ],
      [`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ] as const;
    for (const [raw, status] of cases) {
      const answer = await rawExchange(t.daemon.socketPath, raw);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head.split('\r\n')[0]).toBe(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`,
      );
      const id = /\r\nSvc-Request-Id: (\S+)/.exec(head)?.[1];
      expect(id).toBeTruthy();
      expect(JSON.parse(body).error).toMatchObject({ code: 'invalid_request', request_id: id });
    }
    // and the daemon goes on answering
    expect((await t.call('/healthz')).status).toBe(200);
  });
});

describe('HEAD on an event stream', () => {
  it('answers the head and ends, so a request pipelined behind it is answered too', async () => {
    const auth = `Authorization: Bearer ${t.ownerToken}\r\n`;
    const answer = await rawExchange(
      t.daemon.socketPath,
      `HEAD /v1/events HTTP/1.1\r\nHost: localhost\r\n${auth}\r\n` +
        `GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    const statuses = answer.match(/^HTTP\/1\.1 \d+/gm);
    expect(statuses).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(answer).toMatch(/Content-Type: text\/event-stream/i);
  });
});
