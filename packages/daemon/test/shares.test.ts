/**
 * `shares` on a real daemon: a share widens an app's files access to one path (read, or rw) and
 * to nothing else (the realpath check still holds), ends at delete and at expiry, never exceeds
 * its creator's own files scopes, and is seen by the owner and the two apps it concerns.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { besideDaemon } from './beside-daemon.ts';
import { sleep } from './broker-fixtures.ts';
import { envelope, json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';
import { eventBacklog } from './sse.ts';

let t: TestDaemon;
/** Tokens of the app shared with, of one that shares, and of a bystander. */
let reader: string;
let reader2: string;
let sharer: string;
let stranger: string;
let plain: string;
let root: string;

const scratch = scratchDirs('svc-shares-');

interface Share {
  id: string;
  app_id: string;
  path: string;
  mode: 'read' | 'rw';
  scope: string;
  created_by: string | null;
  created_at: string;
  expires_at: string | null;
}

beforeAll(async () => {
  t = await startTestDaemon();
  root = realpathSync(scratch());
  mkdirSync(join(root, 'docs', 'sub'), { recursive: true });
  mkdirSync(join(root, 'private'));
  writeFileSync(join(root, 'docs', 'a.txt'), 'shared text');
  writeFileSync(join(root, 'docs', 'sub', 'b.txt'), 'deeper');
  writeFileSync(join(root, 'private', 'secret.txt'), 'not shared');
  symlinkSync(join(root, 'private'), join(root, 'docs', 'escape'));
  const act = ['svc:llm', 'svc:act'];
  reader = (await t.appToken(act, { app_id: 'reader' })).token;
  reader2 = (await t.appToken(act, { app_id: 'reader' })).token;
  sharer = (
    await t.appToken(['svc:files:share', `svc:files:read:user:${root}/docs`], { app_id: 'sharer' })
  ).token;
  stranger = (await t.appToken(act, { app_id: 'stranger' })).token;
  plain = (await t.appToken([`svc:files:rw:user:${root}`], { app_id: 'plain' })).token;
});
afterAll(() => t.stop());

const as = (token: string | undefined) => (token === undefined ? {} : { token });
const create = (body: Record<string, unknown>, token?: string) =>
  t.call('/v1/shares', { ...json(body), ...as(token) });

async function share(body: Record<string, unknown>, token?: string): Promise<Share> {
  const res = await create(body, token);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Share;
}

const remove = (id: string, token?: string) =>
  t.call(`/v1/shares/${id}`, { method: 'DELETE', ...as(token) });
const list = async (token?: string, query = '') => {
  const res = await t.call(`/v1/shares${query}`, as(token));
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Share[]; has_more: boolean; next_cursor: string | null };
};
const read = (path: string, token: string) =>
  t.call(`/v1/files/peek?path=${encodeURIComponent(path)}`, { token });
const ls = (path: string, token: string) =>
  t.call(`/v1/files/list?path=${encodeURIComponent(path)}`, { token });
const write = (path: string, token: string) =>
  t.call('/v1/files/write', { ...json({ path, content: 'new' }), token });

const eventsOf = (kind: string) => eventBacklog(t.call, kind);

describe('a share widens the app’s files access to its path, and only that', () => {
  it('read: files.read and files.list work on the path, write does not, other paths stay shut', async () => {
    const docs = join(root, 'docs');
    expect((await read(join(docs, 'a.txt'), reader)).status).toBe(403);
    const made = await share({ app_id: 'reader', path: `${docs}/`, mode: 'read' });
    expect(made).toMatchObject({
      app_id: 'reader',
      path: docs,
      mode: 'read',
      scope: `svc:files:read:user:${docs}`,
      created_by: null,
      expires_at: null,
    });
    expect(made.id).toMatch(/^shr_/);

    const got = await read(join(docs, 'a.txt'), reader);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ content: 'shared text' });
    // Every token of the app, not only the one that was live when the share was made.
    expect((await read(join(docs, 'sub', 'b.txt'), reader2)).status).toBe(200);
    const listing = await ls(docs, reader);
    expect(listing.status).toBe(200);
    const written = await write(join(docs, 'new.txt'), reader);
    expect(written.status).toBe(403);
    expect(await envelope(written)).toMatchObject({
      code: 'scope_missing',
      field: `svc:files:rw:user:${docs}/new.txt`,
    });
    // Outside the path, through a link out of it, and for another app: refused as before.
    const outside = await read(join(root, 'private', 'secret.txt'), reader);
    expect(outside.status).toBe(403);
    const escaped = await read(join(docs, 'escape', 'secret.txt'), reader);
    expect(escaped.status).toBe(403);
    expect((await read(join(docs, 'a.txt'), stranger)).status).toBe(403);

    const created = await eventsOf('share.created');
    expect(created.find((e) => e.subject_id === made.id)?.payload).toEqual({ share: made });
    await remove(made.id);
  });

  it('rw: files.write works on the path too', async () => {
    const dir = join(root, 'docs', 'sub');
    const made = await share({ app_id: 'reader', path: dir, mode: 'rw' });
    expect((await write(join(dir, 'c.txt'), reader)).status).toBe(200);
    expect((await write(join(root, 'docs', 'c.txt'), reader)).status).toBe(403);
    await remove(made.id);
  });

  it('ends when deleted, with a share.deleted event; a second delete is 404', async () => {
    const path = join(root, 'docs', 'a.txt');
    const made = await share({ app_id: 'reader', path, mode: 'read' });
    expect((await read(path, reader)).status).toBe(200);
    const del = await remove(made.id);
    expect(await del.json()).toEqual({ id: made.id, deleted: true });
    expect((await read(path, reader)).status).toBe(403);
    expect((await remove(made.id)).status).toBe(404);
    const deleted = await eventsOf('share.deleted');
    expect(deleted.find((e) => e.subject_id === made.id)?.payload).toEqual({
      share_id: made.id,
      app_id: 'reader',
    });
  });

  it('ends at its expiry, and is gone from the list then', async () => {
    const path = join(root, 'docs', 'a.txt');
    const made = await share({ app_id: 'reader', path, mode: 'read', expires_in_s: 1 });
    expect(Date.parse(made.expires_at!) - Date.parse(made.created_at)).toBe(1000);
    expect((await read(path, reader)).status).toBe(200);
    expect((await list(reader)).data.map((s) => s.id)).toContain(made.id);
    await sleep(Math.max(0, Date.parse(made.expires_at!) - Date.now()) + 50);
    expect((await read(path, reader)).status).toBe(403);
    expect((await list(reader)).data.map((s) => s.id)).not.toContain(made.id);
    expect((await remove(made.id)).status).toBe(404);
  });

  it('still needs svc:act at the files routes: a share grants a path, not the act scope', async () => {
    const path = join(root, 'docs', 'a.txt');
    const noAct = (await t.appToken(['svc:llm'], { app_id: 'reader' })).token;
    const made = await share({ app_id: 'reader', path, mode: 'read' });
    const res = await read(path, noAct);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    await remove(made.id);
  });
});

describe('a share never exceeds its creator', () => {
  it('an app with svc:files:share shares what its files scopes cover, at that mode', async () => {
    const sub = join(root, 'docs', 'sub');
    const made = await share({ app_id: 'reader', path: sub, mode: 'read' }, sharer);
    expect(made).toMatchObject({ created_by: 'sharer', app_id: 'reader' });
    expect((await read(join(sub, 'b.txt'), reader)).status).toBe(200);

    const rw = await create({ app_id: 'reader', path: sub, mode: 'rw' }, sharer);
    expect(rw.status).toBe(403);
    expect(await envelope(rw)).toMatchObject({
      code: 'scope_missing',
      field: `svc:files:rw:user:${sub}`,
      received: ['svc:files:share', `svc:files:read:user:${root}/docs`],
    });
    const wider = await create({ app_id: 'reader', path: root, mode: 'read' }, sharer);
    expect(wider.status).toBe(403);
    expect(await envelope(wider)).toMatchObject({ field: `svc:files:read:user:${root}` });
    await remove(made.id, sharer);
  });

  it('without svc:files:share an app shares nothing, whatever its files scopes', async () => {
    const res = await create({ app_id: 'reader', path: root, mode: 'read' }, plain);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'scope_missing', field: 'svc:files:share' });
  });

  it('a share received is not passed on: it is no files scope of the app’s own token', async () => {
    const sub = join(root, 'docs', 'sub');
    const resharer = (await t.appToken(['svc:files:share'], { app_id: 'resharer' })).token;
    const made = await share({ app_id: 'resharer', path: sub, mode: 'read' });
    const res = await create({ app_id: 'stranger', path: sub, mode: 'read' }, resharer);
    expect(res.status).toBe(403);
    await remove(made.id);
  });
});

describe('a share made by an app lives no longer than the token that made it', () => {
  const sub = () => join(root, 'docs', 'sub');
  const file = () => join(sub(), 'b.txt');
  const docsScopes = () => ['svc:files:share', `svc:files:read:user:${root}/docs`];
  const ids = (page: { data: Share[] }) => page.data.map((s) => s.id);

  it('revoking the token ends the share: the reader is refused again, and it leaves the lists', async () => {
    const maker = await t.appToken(docsScopes(), { app_id: 'sharer' });
    const made = await share({ app_id: 'reader', path: sub(), mode: 'read' }, maker.token);
    const byOwner = await share({ app_id: 'reader', path: sub(), mode: 'read' });
    expect((await read(file(), reader)).status).toBe(200);
    await remove(byOwner.id);
    expect((await read(file(), reader)).status).toBe(200);

    const revoked = await t.call(`/v1/tokens/${maker.token_id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    const res = await read(file(), reader);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({
      code: 'scope_missing',
      field: `svc:files:read:user:${file()}`,
    });
    expect(ids(await list())).not.toContain(made.id);
    expect(ids(await list(reader))).not.toContain(made.id);
    expect(ids(await list(sharer))).not.toContain(made.id);
    // Dead like an expired share: nothing left to end.
    expect((await remove(made.id, sharer)).status).toBe(404);
  });

  it('the token’s expiry ends the share at once', async () => {
    // The answer of POST /v1/connect holds the token's expires_at too.
    const maker = (await t.appToken(docsScopes(), { app_id: 'sharer', expires_in_s: 2 })) as {
      token: string;
      token_id: string;
      expires_at?: string;
    };
    const made = await share({ app_id: 'reader', path: sub(), mode: 'read' }, maker.token);
    expect((await read(file(), reader)).status).toBe(200);
    await sleep(Math.max(0, Date.parse(maker.expires_at!) - Date.now()) + 50);
    expect((await read(file(), reader)).status).toBe(403);
    expect(ids(await list())).not.toContain(made.id);
  });

  it('an app’s share made before its token was recorded (migration 014) grants nothing, and the next create forgets it', async () => {
    const made = await share({ app_id: 'reader', path: sub(), mode: 'read' }, sharer);
    const db = besideDaemon(t.home);
    try {
      db.prepare('UPDATE shares SET creator_token_id = NULL WHERE id = ?').run(made.id);
      expect((await read(file(), reader)).status).toBe(403);
      expect(ids(await list())).not.toContain(made.id);
      const next = await share({ app_id: 'stranger', path: sub(), mode: 'read' });
      const left = db.prepare('SELECT id FROM shares WHERE id = ?').all(made.id);
      expect(left).toEqual([]);
      await remove(next.id);
    } finally {
      db.close();
    }
  });

  it('is tied to the token, not the app: another token of the sharer revoked changes nothing', async () => {
    const other = await t.appToken(docsScopes(), { app_id: 'sharer' });
    const made = await share({ app_id: 'reader', path: sub(), mode: 'read' }, sharer);
    await t.call(`/v1/tokens/${other.token_id}`, { method: 'DELETE' });
    expect((await read(file(), reader)).status).toBe(200);
    expect(ids(await list())).toContain(made.id);
    expect((await remove(made.id, sharer)).status).toBe(200);
  });
});

describe('a files refusal of an app holding shares', () => {
  it('reports the token’s own scope list as received, never its shares', async () => {
    const docs = join(root, 'docs');
    const sub = join(docs, 'sub');
    const first = await share({ app_id: 'reader', path: sub, mode: 'read' });
    const second = await share({ app_id: 'reader', path: sub, mode: 'read' });
    expect((await ls(sub, reader)).status).toBe(200);
    const res = await ls(docs, reader);
    expect(res.status).toBe(403);
    const error = await envelope(res);
    expect(error).toMatchObject({ code: 'scope_missing', field: `svc:files:read:user:${docs}` });
    expect(error.received).toEqual(['svc:llm', 'svc:act']);
    await remove(first.id);
    await remove(second.id);
  });
});

describe('who sees and ends a share', () => {
  it('the owner sees all; an app those made to it or by it; the creator or the owner ends one', async () => {
    const docs = join(root, 'docs');
    const byOwner = await share({ app_id: 'reader', path: docs, mode: 'read' });
    const bySharer = await share({ app_id: 'reader', path: docs, mode: 'read' }, sharer);
    const toStranger = await share({ app_id: 'stranger', path: docs, mode: 'read' });
    const ids = (page: { data: Share[] }) => page.data.map((s) => s.id);

    expect(ids(await list())).toEqual([toStranger.id, bySharer.id, byOwner.id]);
    expect(ids(await list(undefined, '?app_id=stranger'))).toEqual([toStranger.id]);
    expect(ids(await list(reader))).toEqual([bySharer.id, byOwner.id]);
    expect(ids(await list(sharer))).toEqual([bySharer.id]);
    expect(ids(await list(stranger))).toEqual([toStranger.id]);
    expect(ids(await list(plain))).toEqual([]);
    const first = await list(undefined, '?limit=2');
    expect(first).toMatchObject({ has_more: true, next_cursor: bySharer.id });
    expect(ids(await list(undefined, `?limit=2&after=${first.next_cursor}`))).toEqual([byOwner.id]);

    // The app shared with sees it but may not end it; a bystander does not see it at all.
    const byReader = await remove(bySharer.id, reader);
    expect(byReader.status).toBe(403);
    expect(await envelope(byReader)).toMatchObject({ code: 'forbidden' });
    expect((await remove(bySharer.id, stranger)).status).toBe(404);
    expect((await remove(byOwner.id, sharer)).status).toBe(404);
    expect((await remove(bySharer.id, sharer)).status).toBe(200);
    expect((await remove(byOwner.id, reader)).status).toBe(403);
    expect((await remove(byOwner.id)).status).toBe(200);
    expect((await remove(toStranger.id)).status).toBe(200);
  });
});

describe('bad input', () => {
  it('is a 4xx naming the field, and shares nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ app_id: 'reader', path: 'relative/dir', mode: 'read' }, 422, 'path'],
      [{ app_id: 'reader', path: `${root}/../etc`, mode: 'read' }, 422, 'path'],
      [{ app_id: 'reader', path: `${root}/a b`, mode: 'read' }, 422, 'path'],
      // a bidirectional override: a path that shows as another
      [{ app_id: 'reader', path: `${root}/a\u202Eb`, mode: 'read' }, 422, 'path'],
      [{ app_id: 'reader', path: root, mode: 'write' }, 422, 'mode'],
      [{ app_id: 'Not An App', path: root, mode: 'read' }, 422, 'app_id'],
      [{ app_id: 'reader', path: root, mode: 'read', expires_in_s: 0 }, 422, 'expires_in_s'],
      [{ app_id: 'reader', path: root }, 422, 'mode'],
    ];
    for (const [body, status, field] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await envelope(res)).field, JSON.stringify(body)).toBe(field);
    }
    expect((await list()).data).toEqual([]);
    const bad = await t.call('/v1/shares/upl_01ARZ3NDEKTSV4RRFFQ69G5FAV', { method: 'DELETE' });
    expect(bad.status).toBe(422);
  });
});
