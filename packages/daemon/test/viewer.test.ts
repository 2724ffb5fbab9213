/**
 * The web viewer on the daemon: one-time login links, the session cookie and its CSRF rules, and
 * the static build with its security headers, over real HTTP on TCP and the unix socket.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelope,
  json,
  type RawResponse,
  rawRequest,
  scratchDirs,
  startTestDaemon,
  type TestDaemon,
} from './helpers.ts';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const newDir = scratchDirs('svcd-viewer-');

let t: TestDaemon;
let clock = Date.now();
let dist = '';
let tcp: { host: string; port: number };

beforeAll(async () => {
  dist = newDir();
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>svc</title>');
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1);');
  writeFileSync(join(dist, 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(join(dist, 'secret.txt'), 'outside assets');
  t = await startTestDaemon({
    tcp: { host: '127.0.0.1', port: 0 },
    viewer: { dist, now: () => clock },
  });
  const info = t.daemon.tcp!;
  tcp = { host: info.host, port: info.port };
});
afterAll(() => t.stop());

/** A login link's code, from `POST /v1/viewer/links` with the owner token. */
async function newLink(): Promise<{ url: string; code: string; expires_at: string }> {
  const res = await t.call('/v1/viewer/links', json({}));
  expect(res.status).toBe(200);
  const link = (await res.json()) as { url: string; expires_at: string };
  return { ...link, code: new URL(link.url).searchParams.get('code')! };
}

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(tcp, { method, path, headers });

/**
 * A fresh link's session as the viewer page holds it: the cookie (`svc_viewer_<port>=…`) and the
 * page key the login redirect's fragment carries, with both as the headers of a request.
 */
async function login(): Promise<{ cookie: string; key: string; headers: Record<string, string> }> {
  const { code } = await newLink();
  const res = await get(`/viewer/login?code=${code}`);
  expect(res.status).toBe(303);
  const cookie = cookieOf(res);
  const key = String(res.headers.location).slice('/viewer/#key='.length);
  return { cookie, key, headers: { cookie, 'svc-viewer': key } };
}

function cookieOf(res: RawResponse): string {
  const set = res.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  return first!.split(';')[0]!;
}

const errorCode = (res: RawResponse) =>
  (JSON.parse(res.body) as { error: { code: string } }).error.code;

describe('login links', () => {
  it('are the owner’s: an app token gets 403', async () => {
    const app = await t.appToken([]);
    const res = await t.call('/v1/viewer/links', { method: 'POST', token: app.token });
    expect(res.status).toBe(403);
    expect((await envelope(res)).code).toBe('forbidden');
  });

  it('name the TCP listener’s /viewer/login with a 32-byte code, valid 60 s', async () => {
    const link = await newLink();
    const url = new URL(link.url);
    expect(url.origin).toBe(t.daemon.tcp!.base_url);
    expect(url.pathname).toBe('/viewer/login');
    expect(link.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(link.expires_at) - clock).toBe(60_000);
  });

  it('log in once: 303 to /viewer/ with an HttpOnly SameSite=Strict cookie and the page key in the fragment; a second use is 401', async () => {
    const { code } = await newLink();
    // a HEAD (link preview) does not spend it
    expect((await get(`/viewer/login?code=${code}`, {}, 'HEAD')).status).toBe(405);
    const res = await get(`/viewer/login?code=${code}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/viewer\/#key=[A-Za-z0-9_-]{43}$/);
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(new RegExp(`^svc_viewer_${tcp.port}=[A-Za-z0-9_-]{43}; `));
    for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200']) {
      expect(set).toContain(flag);
    }
    expect(res.headers['content-security-policy']).toBe(CSP);
    const again = await get(`/viewer/login?code=${code}`);
    expect(again.status).toBe(401);
    expect(again.headers['content-type']).toMatch(/^text\/html/);
    expect(again.body).toContain('svc sys connect --open');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('racing uses of one code open one session', async () => {
    const { code } = await newLink();
    const answers = await Promise.all([1, 2, 3].map(() => get(`/viewer/login?code=${code}`)));
    expect(answers.map((r) => r.status).sort()).toEqual([303, 401, 401]);
  });

  it('expire after 60 s; an unknown or missing code is 401 too', async () => {
    const { code } = await newLink();
    clock += 60_001;
    expect((await get(`/viewer/login?code=${code}`)).status).toBe(401);
    expect((await get(`/viewer/login?code=${'A'.repeat(43)}`)).status).toBe(401);
    expect((await get('/viewer/login')).status).toBe(401);
  });

  it('need the TCP listener: 409 invalid_state while it is off', async () => {
    const off = await startTestDaemon({ viewer: { dist } });
    try {
      const res = await off.call('/v1/viewer/links', json({}));
      expect(res.status).toBe(409);
      const error = await envelope(res);
      expect(error.code).toBe('invalid_state');
      expect(error.message).toContain('svc sys connect');
    } finally {
      await off.stop();
    }
  });
});

describe('the session cookie', () => {
  it('authenticates as the owner on TCP, with its page key', async () => {
    const { headers } = await login();
    const res = await get('/v1/status', headers);
    expect(res.status).toBe(200);
    const grant = await get('/v1/grant', { ...headers, origin: `http://127.0.0.1:${tcp.port}` });
    expect(JSON.parse(grant.body)).toMatchObject({ kind: 'owner' });
  });

  it('needs its page key as Svc-Viewer on every method: the cookie alone (which every port of the host is sent) is 401', async () => {
    const { cookie, key } = await login();
    const other = await login();
    const asked = await t.call('/v1/human/requests', json({ title: 'q?' }));
    const { ticket_id: ticket } = (await asked.json()) as { ticket_id: string };
    const body = JSON.stringify({ note: 'looking' });
    const headers = { cookie, 'content-type': 'application/json' };
    const post = (extra: Record<string, string>) =>
      rawRequest(tcp, {
        method: 'POST',
        path: `/v1/human/inbox/${ticket}/progress`,
        headers: { ...headers, ...extra },
        body,
      });
    for (const wrong of [
      {},
      { 'svc-viewer': '1' },
      { 'svc-viewer': other.key },
      { 'svc-viewer': `${key}x` },
    ]) {
      const refused = await post(wrong);
      expect(refused.status, JSON.stringify(wrong)).toBe(401);
      expect(JSON.parse(refused.body).error).toMatchObject({
        code: 'unauthorized',
        field: 'Svc-Viewer',
      });
      const read = await get('/v1/human/inbox', { cookie, ...wrong });
      expect(read.status, JSON.stringify(wrong)).toBe(401);
    }
    const events = await get('/v1/events?follow=false', { cookie });
    expect(events.status).toBe(401);
    const marked = await post({ 'svc-viewer': key, origin: `http://localhost:${tcp.port}` });
    expect(marked.status).toBe(200);
  });

  it("changes nothing but what the viewer's buttons do: no token, link, publish token, command, agent with the owner's scopes or home file", async () => {
    const { headers } = await login();
    const post = (path: string, body: unknown) =>
      rawRequest(tcp, {
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const [path, body] of [
      ['/v1/viewer/links', {}],
      ['/v1/connect', { app_id: 'from-viewer', scopes: ['svc:llm'] }],
      ['/v1/connect', {}],
      ['/v1/bash', { command: `cat ${t.home}/owner.token`, cwd: '/' }],
      // A node without named scopes would hold the owner's, bash and files included.
      [
        '/v1/nodes',
        {
          task: 'cat the owner token',
          model: { provider: 'scripted', model: 'x', script: [{ text: 'x' }] },
        },
      ],
      ['/v1/crons', { schedule: '0 0 1 1 *', task: { task: 'x' } }],
      ['/v1/human/requests', { title: 'asked by a page script' }],
      [
        '/v1/custom-objects',
        { name: 'from-viewer', events: { ping: {} }, receiver: { kind: 'queue' } },
      ],
    ] as const) {
      const res = await post(path, body);
      expect(res.status, path).toBe(403);
      expect(errorCode(res)).toBe('forbidden');
      expect(res.body).not.toMatch(/svc_(owner|app)_/);
    }
    const tokens = await t.call('/v1/tokens?limit=200');
    expect(JSON.stringify(await tokens.json())).not.toContain('from-viewer');
    // Its files calls are fenced from the home as a scoped token's are.
    const read = await get(
      `/v1/files/peek?path=${encodeURIComponent(`${t.home}/owner.token`)}`,
      headers,
    );
    expect(read.status).toBe(403);
    expect(JSON.parse(read.body).error).toMatchObject({ code: 'forbidden', field: 'path' });
    expect(read.body).not.toContain(t.ownerToken);
  });

  it('is refused from a foreign Origin', async () => {
    const { headers } = await login();
    for (const origin of ['http://evil.example', `http://127.0.0.1:${tcp.port + 1}`, 'null']) {
      const res = await get('/v1/status', { ...headers, origin });
      expect(res.status, origin).toBe(403);
      expect(errorCode(res)).toBe('forbidden');
    }
  });

  it("is named for the listener's port: another daemon's on the same host is left alone", async () => {
    // Browsers keep cookies per host, not per port (RFC 6265 §8.5).
    const { cookie, key } = await login();
    const secret = cookie.slice(cookie.indexOf('=') + 1);
    const otherPort = `svc_viewer_${tcp.port + 1}`;
    const viewerKey = { 'svc-viewer': key };
    expect(
      (await get('/v1/status', { cookie: `${otherPort}=${secret}`, ...viewerKey })).status,
    ).toBe(401);
    expect(
      (await get('/v1/status', { cookie: `${otherPort}=theirs; ${cookie}`, ...viewerKey })).status,
    ).toBe(200);
  });

  it('is ignored on the unix socket', async () => {
    const { headers } = await login();
    const res = await rawRequest(
      { socketPath: t.daemon.socketPath },
      {
        path: '/v1/status',
        headers,
      },
    );
    expect(res.status).toBe(401);
  });

  it('ends with logout (the cookie cleared), and an expired one is 401', async () => {
    const { headers } = await login();
    const out = await rawRequest(tcp, {
      method: 'POST',
      path: '/v1/viewer/logout',
      headers,
    });
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body)).toEqual({ revoked: true });
    expect(String(out.headers['set-cookie'])).toMatch(
      new RegExp(`^svc_viewer_${tcp.port}=; .*Max-Age=0`),
    );
    const after = await get('/v1/status', headers);
    expect(after.status).toBe(401);
    expect(errorCode(after)).toBe('unauthorized');

    const old = await login();
    clock += 12 * 3600_000 + 1;
    expect((await get('/v1/status', old.headers)).status).toBe(401);
    // a bearer's logout has no session to end
    const bearer = await t.call('/v1/viewer/logout', { method: 'POST' });
    expect(await bearer.json()).toEqual({ revoked: false });
  });

  it('ends the event streams it opened at logout, before any later event', async () => {
    const { headers } = await login();
    let text = '';
    const ended = new Promise<void>((resolve, reject) => {
      const req = request({ ...tcp, path: '/v1/events?kinds=token.created', headers }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.setTimeout(5_000, () => reject(new Error('the stream outlived its session')));
      req.end();
    });
    const out = await rawRequest(tcp, {
      method: 'POST',
      path: '/v1/viewer/logout',
      headers,
    });
    expect(out.status).toBe(200);
    await t.call('/v1/connect', json({ app_id: 'after-logout', scopes: ['svc:llm'] }));
    await ended;
    expect(text).not.toContain('after-logout');
  });

  it('never reaches the log', async () => {
    const { cookie, key, headers } = await login();
    await get('/v1/status', headers);
    const { daemonLog } = await import('./helpers.ts');
    const log = await daemonLog(t.home);
    expect(log).not.toContain(cookie.split('=')[1]!);
    expect(log).not.toContain(key);
  });
});

describe('the static build', () => {
  it('serves index.html (no-cache) and hashed assets (immutable) with the security headers', async () => {
    const index = await get('/viewer/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-cache');
    const js = await get('/viewer/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.body).toBe('console.log(1);');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    const css = await get('/viewer/assets/index-abc123.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    for (const res of [index, js, css]) {
      expect(res.headers['content-security-policy']).toBe(CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    const head = await get('/viewer/', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('puts the security headers on the refusals made before routing too', async () => {
    const foreignHost = await get('/viewer/', { host: `evil.example:${tcp.port}` });
    expect(foreignHost.status).toBe(403);
    const preflight = await get(
      '/viewer/',
      {
        origin: `http://127.0.0.1:${tcp.port}`,
        'access-control-request-method': 'GET',
      },
      'OPTIONS',
    );
    expect(preflight.status).toBe(204);
    for (const res of [foreignHost, preflight]) {
      expect(res.headers['content-security-policy']).toBe(CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('redirects / and /viewer to /viewer/', async () => {
    for (const path of ['/', '/viewer']) {
      const res = await get(path);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/viewer/');
    }
  });

  it('answers 404 to unknown files and to every way out of the build', async () => {
    for (const path of [
      '/viewer/assets/nope.js',
      '/viewer/secret.txt',
      '/viewer/assets/..%2Fsecret.txt',
      '/viewer/assets/%2e%2e/secret.txt',
      '/viewer/assets/../secret.txt',
      '/viewer/assets/..%5csecret.txt',
      '/viewer/assets/.%2e/.%2e/.%2e/package.json',
      '/viewer/assets/%252e%252e%252fsecret.txt',
      '/viewer/assets/',
      '/viewer/../../etc/passwd',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('outside assets');
    }
    expect((await get('/viewer/', {}, 'POST')).status).toBe(405);
  });

  it('is not served on the unix socket', async () => {
    for (const path of ['/', '/viewer/', '/viewer/assets/index-abc123.js', '/viewer/login']) {
      const res = await rawRequest({ socketPath: t.daemon.socketPath }, { path });
      expect(res.status, path).toBe(404);
    }
  });

  it('answers 503 with how to build it when there is no build', async () => {
    const bare = await startTestDaemon({
      tcp: { host: '127.0.0.1', port: 0 },
      viewer: { dist: join(newDir(), 'dist') },
    });
    try {
      const info = bare.daemon.tcp!;
      const res = await rawRequest({ host: info.host, port: info.port }, { path: '/viewer/' });
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('npm run build -w @svc/viewer');
      expect(res.headers['content-security-policy']).toBe(CSP);
    } finally {
      await bare.stop();
    }
  });
});
