/**
 * `uploads` and `attachments` on a real daemon: who sees what, the 1 MiB limit, the file on disk,
 * the raw-body form, and attachment links (TCP only, signed, expiring, served as a sandboxed
 * download, dead once tampered with, expired or deleted; alive across a restart).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../src/index.ts';
import { besideDaemon } from './beside-daemon.ts';
import { createNode, eventually, scripted, sleep } from './broker-fixtures.ts';
import {
  envelope,
  json,
  rawRequest,
  socketFetch,
  startTestDaemon,
  type TestDaemon,
} from './helpers.ts';
import { eventBacklog } from './sse.ts';

const IDLE_BROKER = fileURLToPath(new URL('./fixtures/idle-broker.ts', import.meta.url));
const MiB = 1024 * 1024;

let t: TestDaemon;
let alice: string;
let bob: string;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 1, entry: IDLE_BROKER } });
  alice = (await t.appToken([], { app_id: 'alice' })).token;
  bob = (await t.appToken([], { app_id: 'bob' })).token;
});
afterAll(() => t.stop());

interface Upload {
  id: string;
  filename: string;
  media_type: string;
  size: number;
  sha256: string;
  app_id: string | null;
  created_at: string;
}

const upload = (body: Record<string, unknown>, token?: string) =>
  t.call('/v1/uploads', { ...json(body), ...(token !== undefined && { token }) });

async function made(body: Record<string, unknown>, token?: string): Promise<Upload> {
  const res = await upload(body, token);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Upload;
}

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
const stored = () => readdirSync(join(t.home, 'uploads'));

const eventsOf = (kind: string) => eventBacklog(t.call, kind);

describe('uploads', () => {
  it('stores the bytes 0600 under SVC_HOME/uploads/<id>, answers the record and records an event', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    const up = await made({ filename: 'blob.bin', content_base64: b64(bytes) });
    expect(up).toMatchObject({
      filename: 'blob.bin',
      media_type: 'application/octet-stream',
      size: 6,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      app_id: null,
    });
    expect(up.id).toMatch(/^upl_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const file = join(t.home, 'uploads', up.id);
    expect(readFileSync(file)).toEqual(bytes);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.home, 'uploads')).mode & 0o777).toBe(0o700);
    expect(stored().filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const got = await t.call(`/v1/uploads/${up.id}`);
    expect(await got.json()).toEqual(up);
    const created = await eventsOf('upload.created');
    expect(created.find((e) => e.subject_id === up.id)?.payload).toEqual({ upload: up });
  });

  it('an app sees its own uploads, the owner every one, another app none (404)', async () => {
    const mine = await made(
      {
        filename: 'notes.md',
        media_type: 'text/markdown; charset=utf-8',
        content_base64: b64('# hi'),
      },
      alice,
    );
    expect(mine).toMatchObject({ app_id: 'alice', media_type: 'text/markdown; charset=utf-8' });
    expect((await t.call(`/v1/uploads/${mine.id}`, { token: alice })).status).toBe(200);
    expect((await t.call(`/v1/uploads/${mine.id}`)).status).toBe(200);
    const other = await t.call(`/v1/uploads/${mine.id}`, { token: bob });
    expect(other.status).toBe(404);
    expect(await envelope(other)).toMatchObject({ code: 'not_found', field: 'id' });
    const del = await t.call(`/v1/uploads/${mine.id}`, { method: 'DELETE', token: bob });
    expect(del.status).toBe(404);
    const link = await t.call(`/v1/attachments/link?upload_id=${mine.id}`, { token: bob });
    expect(link.status).toBe(404);
    // The owner's uploads are not an app's either.
    const owners = await made({ filename: 'o.txt', content_base64: b64('o') });
    expect((await t.call(`/v1/uploads/${owners.id}`, { token: alice })).status).toBe(404);
    expect(existsSync(join(t.home, 'uploads', mine.id))).toBe(true);
  });

  it('takes exactly 1 MiB; one byte more is 413 naming content_base64, and nothing is stored', async () => {
    const full = await made({ filename: 'full.bin', content_base64: b64(Buffer.alloc(MiB, 7)) });
    expect(full.size).toBe(MiB);
    const before = stored();
    const res = await upload({ filename: 'big.bin', content_base64: b64(Buffer.alloc(MiB + 1)) });
    expect(res.status).toBe(413);
    expect(await envelope(res)).toMatchObject({
      code: 'payload_too_large',
      field: 'content_base64',
    });
    expect(stored().sort()).toEqual(before.sort());
  });

  it('refuses bad input with a 4xx naming the field, storing nothing', async () => {
    const before = stored();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ filename: 'x', content_base64: 'not base64!' }, 422, 'content_base64'],
      [{ filename: '../x', content_base64: '' }, 422, 'filename'],
      [{ filename: 'a\nb', content_base64: '' }, 422, 'filename'],
      [{ filename: '..', content_base64: '' }, 422, 'filename'],
      [{ filename: 'x', media_type: 'text', content_base64: '' }, 422, 'media_type'],
      [{ filename: 'x', media_type: 'a/b\r\nX: y', content_base64: '' }, 422, 'media_type'],
      // RFC 9110 §5.6.3/§5.6.4: whitespace is space or tab, a quoted string visible ASCII; a
      // type stored otherwise would be no header node sends, and every link to it would fail.
      ...[
        'text/plain\r\n; a=b',
        'text/plain\n;a=b',
        'text/plain\u00a0; a=b',
        'text/plain; a="中"',
        'text/plain; a="é"',
        'text/plain; a="\u0000"',
        'text/plain ',
      ].map((media_type): [Record<string, unknown>, number, string] => [
        { filename: 'x', media_type, content_base64: '' },
        422,
        'media_type',
      ]),
      [{ filename: 'x' }, 422, 'content_base64'],
      [{ filename: 'x', content_base64: '', extra: 1 }, 422, 'extra'],
    ];
    for (const [body, status, field] of cases) {
      const res = await upload(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await envelope(res)).field, JSON.stringify(body)).toBe(field);
    }
    expect(stored().sort()).toEqual(before.sort());
  });

  it('takes the bytes as a raw body at /v1/uploads/raw, up to 1 MiB', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0, 1]);
    const res = await t.call('/v1/uploads/raw?filename=raw.bin&media_type=image%2Fpng', {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
      token: alice,
    });
    expect(res.status).toBe(200);
    const up = (await res.json()) as Upload;
    expect(up).toMatchObject({
      filename: 'raw.bin',
      media_type: 'image/png',
      size: 4,
      app_id: 'alice',
    });
    expect(readFileSync(join(t.home, 'uploads', up.id))).toEqual(bytes);
    const big = await t.call('/v1/uploads/raw?filename=big.bin', {
      method: 'POST',
      body: Buffer.alloc(MiB + 1),
    });
    expect(big.status).toBe(413);
    expect(await envelope(big)).toMatchObject({ code: 'payload_too_large', field: 'body' });
    const nameless = await t.call('/v1/uploads/raw', { method: 'POST', body: bytes });
    expect(nameless.status).toBe(422);
    expect(await envelope(nameless)).toMatchObject({ field: 'filename' });
    for (const type of ['text/plain\r\n; a=b', 'text/plain; a="中"']) {
      const bad = await t.call(
        `/v1/uploads/raw?filename=t.txt&media_type=${encodeURIComponent(type)}`,
        { method: 'POST', body: bytes },
      );
      expect(bad.status, type).toBe(422);
      expect(await envelope(bad), type).toMatchObject({
        code: 'validation_failed',
        field: 'media_type',
      });
    }
  });

  it('deletes the record and the file; a second delete is 404', async () => {
    const up = await made({ filename: 'gone.txt', content_base64: b64('bye') }, alice);
    const del = await t.call(`/v1/uploads/${up.id}`, { method: 'DELETE', token: alice });
    expect(await del.json()).toEqual({ id: up.id, deleted: true });
    expect(existsSync(join(t.home, 'uploads', up.id))).toBe(false);
    expect((await t.call(`/v1/uploads/${up.id}`)).status).toBe(404);
    expect((await t.call(`/v1/uploads/${up.id}`, { method: 'DELETE' })).status).toBe(404);
    const deleted = await eventsOf('upload.deleted');
    expect(deleted.find((e) => e.subject_id === up.id)?.payload).toEqual({ upload_id: up.id });
  });

  it('refuses a node token (403) on uploads, links, shares and questions', async () => {
    const node = await createNode(t.call, {
      task: 'hold a token',
      scopes: ['svc:llm', 'svc:act'],
      model: scripted('unused', [{ text: 'never played' }]),
    });
    const file = join(t.home, 'worktrees', node.id, 'launch.json');
    await eventually(() => existsSync(file) && readFileSync(file, 'utf8') !== '', 15_000);
    const { token } = JSON.parse(readFileSync(file, 'utf8')) as { token: string };
    const res = await upload({ filename: 'n.txt', content_base64: '' }, token);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'forbidden' });
    for (const path of [
      '/v1/shares',
      '/v1/attachments/link?upload_id=upl_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '/v1/questions/q_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    ]) {
      const res = await t.call(path, { token });
      expect(res.status, path).toBe(403);
      expect((await envelope(res)).code, path).toBe('forbidden');
    }
  });
});

describe('attachment links', () => {
  it('is 409 invalid_state while the TCP listener is off', async () => {
    // A daemon of its own: minting app tokens (POST /v1/connect) turned the other one's on.
    const d = await startTestDaemon();
    try {
      expect(d.daemon.tcp).toBeNull();
      const res = await d.call(
        '/v1/uploads',
        json({ filename: 'a.txt', content_base64: b64('a') }),
      );
      const up = (await res.json()) as Upload;
      const linked = await d.call(`/v1/attachments/link?upload_id=${up.id}`);
      expect(linked.status).toBe(409);
      const error = await envelope(linked);
      expect(error).toMatchObject({ code: 'invalid_state' });
      expect(error.message).toMatch(/svc sys connect/);
    } finally {
      await d.stop();
    }
  });

  describe('with the TCP listener on', () => {
    let base: string;
    beforeAll(() => {
      base = t.daemon.tcp!.base_url;
    });

    const link = async (id: string, token?: string, ttl?: number) => {
      const q = ttl === undefined ? '' : `&ttl_s=${ttl}`;
      const res = await t.call(`/v1/attachments/link?upload_id=${id}${q}`, {
        ...(token !== undefined && { token }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as { url: string; expires_at: string };
    };

    it('serves the bytes without a bearer, as a sandboxed download of the stored type', async () => {
      const html = '<script>alert(1)</script>';
      const up = await made(
        { filename: 'résumé "final".html', media_type: 'text/html', content_base64: b64(html) },
        alice,
      );
      const before = Date.now();
      const { url, expires_at } = await link(up.id, alice);
      expect(url.startsWith(`${base}/v1/attachments/${up.id}/content?`)).toBe(true);
      expect(url).not.toContain('svc_');
      const ttl = Date.parse(expires_at) - before;
      expect(ttl).toBeGreaterThan(298_000);
      expect(ttl).toBeLessThanOrEqual(300_000);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(html);
      expect(res.headers.get('content-type')).toBe('text/html');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe('sandbox');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="r_sum_ _final_.html"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.html`,
      );
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    });

    it('takes any media type RFC 9110 allows, and serves it as stored', async () => {
      const types = [
        'application/vnd.api+json',
        'text/plain;charset=utf-8',
        'text/plain;\tcharset="utf-8"; a="q \\" \\\\ t"',
        "x-a/y~`|'*%; k=v",
      ];
      for (const type of types) {
        const up = await made({ filename: 't.txt', media_type: type, content_base64: b64('t') });
        expect(up.media_type).toBe(type);
        const res = await fetch((await link(up.id)).url);
        expect(res.status, type).toBe(200);
        expect(res.headers.get('content-type'), type).toBe(type);
      }
    });

    it('serves a stored type that is no valid header (an older row) as application/octet-stream', async () => {
      const up = await made({
        filename: 'old.txt',
        media_type: 'text/plain',
        content_base64: b64('o'),
      });
      const db = besideDaemon(t.home);
      try {
        db.prepare('UPDATE uploads SET media_type = ? WHERE id = ?').run(
          'text/plain\r\n; a=b; n="中"',
          up.id,
        );
      } finally {
        db.close();
      }
      const res = await fetch((await link(up.id)).url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(await res.text()).toBe('o');
    });

    it('takes ttl_s from 1 to 3600', async () => {
      const up = await made({ filename: 'b.txt', content_base64: b64('b') });
      const long = await link(up.id, undefined, 3600);
      expect(Date.parse(long.expires_at) - Date.now()).toBeGreaterThan(3598_000);
      for (const ttl of ['0', '3601', 'x']) {
        const res = await t.call(`/v1/attachments/link?upload_id=${up.id}&ttl_s=${ttl}`);
        expect(res.status).toBe(422);
        expect(await envelope(res)).toMatchObject({ field: 'ttl_s' });
      }
      const bad = await t.call('/v1/attachments/link?upload_id=nd_x');
      expect(await envelope(bad)).toMatchObject({ code: 'validation_failed', field: 'upload_id' });
      const unknown = await t.call('/v1/attachments/link?upload_id=upl_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      expect(unknown.status).toBe(404);
    });

    it('a tampered link is a 404 that says nothing of why', async () => {
      const up = await made({ filename: 'c.txt', content_base64: b64('c') });
      const other = await made({ filename: 'd.txt', content_base64: b64('d') });
      const { url } = await link(up.id);
      const u = new URL(url);
      const sig = u.searchParams.get('sig')!;
      const expires = u.searchParams.get('expires')!;
      const flipped = `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
      const variants = [
        `${u.pathname}?expires=${expires}&sig=${flipped}`,
        `${u.pathname}?expires=${Number(expires) + 1}&sig=${sig}`,
        `/v1/attachments/${other.id}/content?expires=${expires}&sig=${sig}`,
        `${u.pathname}?expires=${expires}`,
        `${u.pathname}?sig=${sig}`,
        `${u.pathname}?expires=${expires}&sig=${sig}=`,
        u.pathname,
      ];
      const messages = new Set<string>();
      for (const path of variants) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, path).toBe(404);
        messages.add((await envelope(res)).message);
      }
      expect([...messages]).toEqual(['this attachment link is invalid or has expired']);
      expect((await fetch(url)).status).toBe(200);
    });

    it('a malformed link is the same 404, whichever part is wrong', async () => {
      const up = await made({ filename: 'm.txt', content_base64: b64('m') });
      const u = new URL((await link(up.id)).url);
      const sig = u.searchParams.get('sig')!;
      const expires = u.searchParams.get('expires')!;
      const variants = [
        `${u.pathname}?expires=${expires}&sig=${'a'.repeat(500)}`,
        `${u.pathname}?expires=${'9'.repeat(33)}&sig=${sig}`,
        `${u.pathname}?expires=${'1'.repeat(5000)}&sig=${sig}`,
        `${u.pathname}?expires=-1&sig=${sig}`,
        `${u.pathname}?expires=${expires}&sig=`,
        `/v1/attachments/upl_x/content?expires=${expires}&sig=${sig}`,
        `/v1/attachments/nd_01ARZ3NDEKTSV4RRFFQ69G5FAV/content?expires=${expires}&sig=${sig}`,
        `/v1/attachments/${'u'.repeat(300)}/content?expires=${expires}&sig=${sig}`,
        `/v1/attachments/..%2F..%2Fsvc.db/content?expires=${expires}&sig=${sig}`,
      ];
      for (const path of variants) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, path.slice(0, 120)).toBe(404);
        const error = await envelope(res);
        expect(error, path.slice(0, 120)).toMatchObject({
          code: 'not_found',
          message: 'this attachment link is invalid or has expired',
        });
        expect(error.field, path.slice(0, 120)).toBeUndefined();
      }
      expect((await fetch(u)).status).toBe(200);
    });

    it('an expired link is the same 404', async () => {
      const up = await made({ filename: 'e.txt', content_base64: b64('e') });
      const { url, expires_at } = await link(up.id, undefined, 1);
      await sleep(Math.max(0, Date.parse(expires_at) - Date.now()) + 50);
      const res = await fetch(url);
      expect(res.status).toBe(404);
      expect((await envelope(res)).message).toBe('this attachment link is invalid or has expired');
    });

    it('a deleted upload ends its links', async () => {
      const up = await made({ filename: 'f.txt', content_base64: b64('f') });
      const { url } = await link(up.id);
      expect((await fetch(url)).status).toBe(200);
      await t.call(`/v1/uploads/${up.id}`, { method: 'DELETE' });
      expect((await fetch(url)).status).toBe(404);
    });

    it('is served behind the Host guard like every route of the TCP listener', async () => {
      const up = await made({ filename: 'g.txt', content_base64: b64('g') });
      const u = new URL((await link(up.id)).url);
      const res = await rawRequest(
        { host: '127.0.0.1', port: Number(u.port) },
        {
          path: u.pathname + u.search,
          headers: { host: `evil.example:${u.port}` },
          setHost: false,
        },
      );
      expect(res.status).toBe(403);
    });
  });
});

describe('across a restart', () => {
  it('links stay valid (the key is kept), and files left without a record are removed', async () => {
    const d = await startTestDaemon({ tcp: { host: '127.0.0.1', port: 0 } });
    try {
      const res = await d.call(
        '/v1/uploads',
        json({ filename: 'k.txt', content_base64: b64('kept') }),
      );
      const up = (await res.json()) as Upload;
      const linked = await d.call(`/v1/attachments/link?upload_id=${up.id}`);
      const { url } = (await linked.json()) as { url: string };
      await d.daemon.close();
      const orphan = join(d.home, 'uploads', 'upl_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      writeFileSync(orphan, 'no record');
      writeFileSync(join(d.home, 'uploads', `.${up.id}.1234.tmp`), 'half');
      const again = await startDaemon({
        home: d.home,
        logLevel: 'warn',
        tcp: { host: '127.0.0.1', port: 0 },
      });
      try {
        const u = new URL(url);
        const served = await fetch(`${again.tcp!.base_url}${u.pathname}${u.search}`);
        expect(served.status).toBe(200);
        expect(await served.text()).toBe('kept');
        expect(readdirSync(join(d.home, 'uploads'))).toEqual([up.id]);
        const owner = readFileSync(join(d.home, 'owner.token'), 'utf8').trim();
        const call = socketFetch(again.socketPath, owner);
        expect((await call(`/v1/uploads/${up.id}`)).status).toBe(200);
      } finally {
        await again.close();
      }
    } finally {
      await d.stop().catch(() => {});
    }
  });
});
