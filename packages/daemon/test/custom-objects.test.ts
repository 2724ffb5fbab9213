/**
 * Custom objects against a real daemon over its socket: registration and its checks, publishing
 * and the publish token's confinement, who sees what, and a queue receiver's stream (replay of
 * every unacknowledged delivery on each connect) and acks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { besideDaemon } from './beside-daemon.ts';
import { daemonLog, envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { eventBacklog, readFrames, seqs } from './sse.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ sseKeepaliveMs: 60_000 });
});
afterAll(() => t.stop());

interface Registered {
  id: string;
  name: string;
  app_id: string | null;
  publish_token: string;
  signing_secret?: string;
  pending_deliveries: number;
  [key: string]: unknown;
}

const QUEUE = { kind: 'queue' } as const;
const EVENTS = {
  'build.done': {
    description: 'a build finished',
    schema: {
      type: 'object',
      properties: { count: { type: 'integer' } },
      required: ['count'],
    },
  },
  ping: {},
};

/** Registers as the owner. */
async function register(body: Record<string, unknown> = {}): Promise<Registered> {
  const res = await t.call(
    '/v1/custom-objects',
    json({ name: 'builds', events: EVENTS, receiver: QUEUE, ...body }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Registered;
}

async function registerAs(token: string, body: Record<string, unknown> = {}) {
  return t.call('/v1/custom-objects', {
    ...json({ name: 'builds', events: EVENTS, receiver: QUEUE, ...body }),
    token,
  });
}

const publish = (id: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
  t.call(`/v1/custom-objects/${id}/publish`, {
    ...json(body, 'POST', headers),
    ...(token === undefined ? {} : { token }),
  });

async function published(id: string, body: unknown, token?: string) {
  const res = await publish(id, body, token);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { delivery_id: string; seq: number };
}

const ack = (id: string, ids: string[], token?: string) =>
  t.call(`/v1/custom-objects/${id}/ack`, {
    ...json({ delivery_ids: ids }),
    ...(token === undefined ? {} : { token }),
  });

interface Page {
  data: { id: string }[];
  has_more: boolean;
  next_cursor: string | null;
}

async function getJson<T>(path: string, token?: string): Promise<T> {
  return (await (await t.call(path, token === undefined ? {} : { token })).json()) as T;
}

const pending = async (id: string) =>
  (await getJson<{ pending_deliveries: number }>(`/v1/custom-objects/${id}`)).pending_deliveries;

/** The database files' bytes as text, to look for what must not be stored. */
function dbText(): string {
  return ['svc.db', 'svc.db-wal']
    .map((f) => {
      try {
        return readFileSync(join(t.home, f)).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('');
}

async function objectEvents(kind: string, subject: string) {
  return (await eventBacklog(t.call, kind)).filter((e) => e.subject_id === subject);
}

describe('register', () => {
  it('answers the object with its publish token once; url receivers also get a signing secret', async () => {
    const queue = await register({ description: 'CI builds' });
    expect(queue).toMatchObject({
      id: expect.stringMatching(/^obj_[0-9A-Z]{26}$/),
      name: 'builds',
      description: 'CI builds',
      receiver: { kind: 'queue' },
      app_id: null,
      pending_deliveries: 0,
      events: {
        'build.done': { description: 'a build finished', schema: EVENTS['build.done'].schema },
        ping: { description: null, schema: null },
      },
      publish_token: expect.stringMatching(/^svc_pub_[A-Za-z0-9_-]{43}$/),
    });
    expect(queue).not.toHaveProperty('signing_secret');

    const hook = await register({ receiver: { kind: 'url', url: 'https://example.test/hook' } });
    expect(hook.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    // Shown once: neither the retrieve nor the list carries a secret.
    const got = await (await t.call(`/v1/custom-objects/${hook.id}`)).json();
    expect(got).not.toHaveProperty('publish_token');
    expect(got).not.toHaveProperty('signing_secret');
    const { publish_token: _p, signing_secret: _s, ...dto } = hook;
    expect(got).toEqual(dto);

    // The publish token is stored as its hash only, and never logged.
    const db = dbText();
    expect(db).not.toContain(queue.publish_token);
    expect(db).not.toContain(hook.publish_token);
    const log = await daemonLog(t.home);
    expect(log).not.toContain(hook.publish_token);
    expect(log).not.toContain(hook.signing_secret);
  });

  it('a register retried with its Idempotency-Key gets the same secrets, which are never stored', async () => {
    const init = json(
      { name: 'hooked', events: { a: {} }, receiver: { kind: 'url', url: 'https://x.test/' } },
      'POST',
      { 'idempotency-key': 'reg-1' },
    );
    const first = (await (await t.call('/v1/custom-objects', init)).json()) as Registered;
    const again = await t.call('/v1/custom-objects', init);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(first);
    expect(dbText()).not.toContain(first.publish_token);
    // The stored first answer has both secrets blanked (the signing secret lives in its object's
    // row alone, where the daemon signs with it).
    const raw = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
    try {
      const row = raw.prepare("SELECT body FROM idempotency_keys WHERE key = 'reg-1'").get() as {
        body: string;
      };
      expect(JSON.parse(row.body)).toMatchObject({ publish_token: null, signing_secret: null });
    } finally {
      raw.close();
    }
  });

  it('refuses a bad body with a 4xx naming the field, and creates nothing', async () => {
    const before = (await getJson<Page>('/v1/custom-objects?limit=200')).data.length;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ events: {} }, 422, 'events'],
      [{ events: { 'Bad Name': {} } }, 422, 'events.Bad Name'],
      [{ events: { ok: { schema: { type: 'nope' } } } }, 400, 'events.ok.schema'],
      [{ events: { ok: { schema: { $ref: '#/nowhere' } } } }, 400, 'events.ok.schema'],
      // Any token registers: a backtracking pattern would let it stall the daemon on a publish.
      [{ events: { ok: { schema: { pattern: '^(a+)+$' } } } }, 400, 'events.ok.schema'],
      [{ receiver: { kind: 'url', url: 'ftp://example.test/x' } }, 422, 'receiver.url'],
      [{ receiver: { kind: 'url', url: 'not a url' } }, 422, 'receiver.url'],
      [{ receiver: { kind: 'url', url: 'https://me:pw@example.test/' } }, 422, 'receiver.url'],
      [{ receiver: { kind: 'mail' } }, 422, 'receiver.kind'],
      [{ receiver: { kind: 'argv', argv: [] } }, 422, 'receiver.argv'],
      [{ receiver: { kind: 'argv', argv: ['x'], cwd: 'relative' } }, 422, 'receiver.cwd'],
      [{ receiver: { kind: 'argv', argv: ['x'], cwd: '/no/such/dir' } }, 422, 'receiver.cwd'],
      [{ name: '' }, 422, 'name'],
      [{ extra: true }, 422, 'extra'],
    ];
    for (const [body, status, field] of cases) {
      const res = await t.call(
        '/v1/custom-objects',
        json({ name: 'x', events: { ok: {} }, receiver: QUEUE, ...body }),
      );
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await envelope(res)).field, JSON.stringify(body)).toBe(field);
    }
    const after = (await getJson<Page>('/v1/custom-objects?limit=200')).data.length;
    expect(after).toBe(before);
  });

  it('argv and url receivers act on the host and need svc:act; a queue needs no scope', async () => {
    const argv = { receiver: { kind: 'argv', argv: ['/bin/true'] } };
    const url = { receiver: { kind: 'url', url: 'http://127.0.0.1:9/x' } };
    const plain = await t.appToken(['svc:llm']);
    for (const body of [argv, url]) {
      const refused = await registerAs(plain.token, body);
      expect(refused.status).toBe(403);
      expect(await envelope(refused)).toMatchObject({
        code: 'scope_missing',
        field: 'svc:act',
        received: ['svc:llm'],
      });
    }
    expect((await registerAs(plain.token)).status).toBe(200);
    const actor = await t.appToken(['svc:llm', 'svc:act']);
    const ok = await registerAs(actor.token, url);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ app_id: 'test-app', receiver: url.receiver });
  });

  it("an argv receiver is the owner's alone: its program would run beyond a token's ceiling", async () => {
    const argv = { receiver: { kind: 'argv', argv: ['/bin/true'] } };
    const before = (await getJson<Page>('/v1/custom-objects?limit=200')).data.length;
    // svc:act runs this token's bash in a sandbox of its ceiling; an argv program has none.
    const actor = await t.appToken(['svc:llm', 'svc:act']);
    const refused = await registerAs(actor.token, argv);
    expect(refused.status).toBe(403);
    expect(await envelope(refused)).toMatchObject({
      code: 'forbidden',
      field: 'receiver.kind',
      received: 'argv',
      message: expect.stringMatching(/unconfined.*only the owner/),
    });
    expect((await getJson<Page>('/v1/custom-objects?limit=200')).data.length).toBe(before);
    expect((await register(argv)).receiver).toEqual(argv.receiver);
  });
});

describe('publish', () => {
  it('an event schema stored before the kit refused it answers 409, never a 500', async () => {
    const obj = await register();
    // As registered before compileSchema refused patterns that repeat a repetition.
    const evil = { 'build.done': { description: null, schema: { pattern: '^(a+)+$' } } };
    const raw = besideDaemon(t.home);
    raw
      .prepare('UPDATE custom_objects SET events = ? WHERE id = ?')
      .run(JSON.stringify(evil), obj.id);
    raw.close();
    const res = await publish(obj.id, { event: 'build.done', data: 'aaa' });
    expect(res.status).toBe(409);
    expect(await envelope(res)).toMatchObject({ code: 'invalid_state', field: 'event' });
  });

  it('records one object.event and one delivery; the publish token alone suffices', async () => {
    const obj = await register();
    const answer = await published(
      obj.id,
      { event: 'build.done', data: { count: 3 } },
      obj.publish_token,
    );
    expect(answer).toEqual({
      delivery_id: expect.stringMatching(/^dlv_[0-9A-Z]{26}$/),
      seq: expect.any(Number),
    });
    const [event, ...more] = await objectEvents('object.event', obj.id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      seq: answer.seq,
      kind: 'object.event',
      subject_id: obj.id,
      payload: {
        object_id: obj.id,
        event: 'build.done',
        data: { count: 3 },
        delivery_id: answer.delivery_id,
      },
    });
    expect(await pending(obj.id)).toBe(1);
    // The owner may publish too; data defaults to null.
    await published(obj.id, { event: 'ping' });
    const events = await objectEvents('object.event', obj.id);
    expect(events.at(-1)?.payload.data).toBeNull();
  });

  it('refuses an undeclared event and data outside its schema with 422 naming the field', async () => {
    const obj = await register();
    const unknown = await publish(obj.id, { event: 'build.started' }, obj.publish_token);
    expect(unknown.status).toBe(422);
    expect(await envelope(unknown)).toMatchObject({
      code: 'validation_failed',
      field: 'event',
      received: 'build.started',
    });
    const bad = await publish(
      obj.id,
      { event: 'build.done', data: { count: 'three' } },
      obj.publish_token,
    );
    expect(bad.status).toBe(422);
    expect(await envelope(bad)).toMatchObject({ field: 'data.count' });
    const missing = await publish(obj.id, { event: 'build.done' }, obj.publish_token);
    expect(missing.status).toBe(422);
    expect((await envelope(missing)).field).toBe('data');
    expect(await objectEvents('object.event', obj.id)).toEqual([]);
    expect(await pending(obj.id)).toBe(0);
  });

  it('a publish token works on its own object’s publish route only', async () => {
    const a = await register();
    const b = await register();
    const other = await publish(b.id, { event: 'ping' }, a.publish_token);
    expect(other.status).toBe(403);
    expect((await envelope(other)).code).toBe('forbidden');
    for (const [path, init] of [
      ['/v1/status', {}],
      [`/v1/custom-objects/${a.id}`, {}],
      ['/v1/custom-objects', {}],
      [`/v1/custom-objects/${a.id}/deliveries`, {}],
      [`/v1/custom-objects/${a.id}/ack`, json({ delivery_ids: [] })],
      [`/v1/custom-objects/${a.id}`, { method: 'DELETE' }],
      ['/v1/custom-objects', json({ name: 'x', events: { a: {} }, receiver: QUEUE })],
    ] as const) {
      const res = await t.call(path, { ...init, token: a.publish_token });
      expect(res.status, path).toBe(401);
      expect((await envelope(res)).code).toBe('unauthorized');
    }
    // A made-up token of the right shape is unknown.
    const fake = `svc_pub_${'A'.repeat(43)}`;
    expect((await publish(a.id, { event: 'ping' }, fake)).status).toBe(401);
  });

  it('Idempotency-Key on a publish returns the first answer instead of a second delivery', async () => {
    const obj = await register();
    const key = { 'idempotency-key': 'pub-1' };
    const first = await publish(obj.id, { event: 'ping' }, obj.publish_token, key);
    const again = await publish(obj.id, { event: 'ping' }, obj.publish_token, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await objectEvents('object.event', obj.id)).toHaveLength(1);
  });
});

describe('who sees what', () => {
  it("a reader by scope sees a url receiver's origin only: the rest may hold a secret", async () => {
    const hooks = await t.appToken(['svc:llm', 'svc:act'], { app_id: 'hook-app' });
    const reader = await t.appToken(['svc:objects:read:app:hook-app'], { app_id: 'peeker' });
    const url = 'http://127.0.0.1:9/hooks/s3cr3t-path?token=abc';
    const res = await registerAs(hooks.token, { receiver: { kind: 'url', url } });
    const obj = (await res.json()) as Registered;
    const seen = (token: string) =>
      getJson<{ receiver: { url: string } }>(`/v1/custom-objects/${obj.id}`, token);
    expect((await seen(hooks.token)).receiver.url).toBe(url);
    expect((await seen(t.ownerToken)).receiver.url).toBe(url);
    expect((await seen(reader.token)).receiver.url).toBe('http://127.0.0.1:9');
    const listed = await getJson<Page>('/v1/custom-objects?limit=200', reader.token);
    expect(JSON.stringify(listed)).not.toContain('s3cr3t');
  });

  it('an app sees its own; svc:objects:read:app:<id> reads another app’s; anyone else gets 404', async () => {
    const owner = await t.appToken([], { app_id: 'owner-app' });
    const stranger = await t.appToken([], { app_id: 'stranger' });
    const reader = await t.appToken(['svc:objects:read:app:owner-app'], { app_id: 'reader' });
    const res = await registerAs(owner.token);
    const obj = (await res.json()) as Registered;
    expect(obj.app_id).toBe('owner-app');
    const ownersPrivate = await register();

    const ids = async (token: string) =>
      (await getJson<Page>('/v1/custom-objects?limit=200', token)).data.map((o) => o.id);
    expect(await ids(owner.token)).toEqual([obj.id]);
    expect(await ids(reader.token)).toEqual([obj.id]);
    expect(await ids(stranger.token)).toEqual([]);
    expect(await ids(t.ownerToken)).toEqual(expect.arrayContaining([obj.id, ownersPrivate.id]));

    expect((await t.call(`/v1/custom-objects/${obj.id}`, { token: reader.token })).status).toBe(
      200,
    );
    for (const token of [stranger.token, reader.token]) {
      // The owner's own objects are nobody else's.
      const res = await t.call(`/v1/custom-objects/${ownersPrivate.id}`, { token });
      expect(res.status).toBe(404);
    }
    const hidden = await t.call(`/v1/custom-objects/${obj.id}`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect((await publish(obj.id, { event: 'ping' }, stranger.token)).status).toBe(404);
    expect(
      (await t.call(`/v1/custom-objects/${obj.id}`, { method: 'DELETE', token: stranger.token }))
        .status,
    ).toBe(404);

    // Reading is not changing: the reader gets 403 on publish, ack and unregister.
    expect((await publish(obj.id, { event: 'ping' }, reader.token)).status).toBe(403);
    expect((await ack(obj.id, ['dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV'], reader.token)).status).toBe(403);
    const del = await t.call(`/v1/custom-objects/${obj.id}`, {
      method: 'DELETE',
      token: reader.token,
    });
    expect(del.status).toBe(403);
    // The owning app publishes with its own token as well as with the publish token.
    await published(obj.id, { event: 'ping' }, owner.token);
    const stream = await t.call(`/v1/custom-objects/${obj.id}/deliveries`, {
      token: reader.token,
    });
    expect(stream.status).toBe(200);
    const { frames } = await readFrames(stream, (f) => seqs(f).length >= 1);
    expect(seqs(frames)).toHaveLength(1);
  });

  it('lists newest first, in pages', async () => {
    const app = await t.appToken([], { app_id: 'pager' });
    const made: string[] = [];
    for (let i = 0; i < 3; i++)
      made.push(((await (await registerAs(app.token)).json()) as Registered).id);
    const first = await getJson<Page>('/v1/custom-objects?limit=2', app.token);
    expect(first.data.map((o) => o.id)).toEqual([made[2], made[1]]);
    expect(first).toMatchObject({ has_more: true, next_cursor: made[1] });
    const second = await getJson<Page>(
      `/v1/custom-objects?limit=2&after=${first.next_cursor}`,
      app.token,
    );
    expect(second).toMatchObject({ data: [{ id: made[0] }], has_more: false, next_cursor: null });
  });
});

describe('a queue receiver', () => {
  it('replays every unacknowledged delivery on each connect, then live ones; ack is idempotent', async () => {
    const obj = await register();
    const sent = [];
    for (let i = 1; i <= 3; i++) {
      sent.push(
        await published(obj.id, { event: 'build.done', data: { count: i } }, obj.publish_token),
      );
    }
    const url = `/v1/custom-objects/${obj.id}/deliveries`;
    const first = await t.call(url);
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const read1 = await readFrames(first, (f) => seqs(f).length >= 3);
    expect(seqs(read1.frames)).toEqual(sent.map((s) => s.seq));
    const delivery = JSON.parse(read1.frames.find((f) => f.id !== undefined)!.data!);
    expect(delivery).toMatchObject({
      seq: sent[0]!.seq,
      kind: 'object.event',
      subject_id: obj.id,
      payload: { object_id: obj.id, event: 'build.done', data: { count: 1 } },
    });
    expect(read1.frames.find((f) => f.id !== undefined)?.event).toBe('object.event');

    const acked = await ack(obj.id, [sent[0]!.delivery_id]);
    expect(await acked.json()).toEqual({ acked: 1, not_found: [] });
    // Twice is harmless, and says the same.
    expect(await (await ack(obj.id, [sent[0]!.delivery_id, sent[0]!.delivery_id])).json()).toEqual({
      acked: 1,
      not_found: [],
    });
    const events = await objectEvents('object.delivery', obj.id);
    expect(events.map((e) => e.payload)).toEqual([
      { object_id: obj.id, delivery_id: sent[0]!.delivery_id, state: 'delivered', attempts: 0 },
    ]);

    // Reconnecting after the last seq seen still replays the two unacknowledged ones first.
    const again = await t.call(url, { headers: { 'last-event-id': String(sent[2]!.seq) } });
    const live = published(obj.id, { event: 'ping' }, obj.publish_token);
    const read2 = await readFrames(again, (f) => seqs(f).length >= 3);
    const fourth = await live;
    expect(seqs(read2.frames)).toEqual([sent[1]!.seq, sent[2]!.seq, fourth.seq]);

    // ?after= below an acknowledged delivery sends it too; without a cursor only pending ones.
    const history = await t.call(`${url}?after=0`);
    expect(seqs((await readFrames(history, (f) => seqs(f).length >= 4)).frames)).toEqual([
      ...sent.map((s) => s.seq),
      fourth.seq,
    ]);
    await ack(obj.id, [sent[1]!.delivery_id, sent[2]!.delivery_id, fourth.delivery_id]);
    const quiet = await t.call(url);
    const read3 = await readFrames(quiet, (f) => seqs(f).length >= 1, 300);
    expect(seqs(read3.frames)).toEqual([]);
    expect(await pending(obj.id)).toBe(0);
  });

  it('ack lists ids that are no delivery of this object, and acks the rest', async () => {
    const a = await register();
    const b = await register();
    const da = await published(a.id, { event: 'ping' }, a.publish_token);
    const db = await published(b.id, { event: 'ping' }, b.publish_token);
    const missing = 'dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const res = await ack(a.id, [da.delivery_id, db.delivery_id, missing]);
    expect(await res.json()).toEqual({ acked: 1, not_found: [db.delivery_id, missing] });
    // b's delivery was left alone.
    expect(await pending(b.id)).toBe(1);
    const malformed = await ack(a.id, ['nope']);
    expect(malformed.status).toBe(422);
    expect((await envelope(malformed)).field).toBe('delivery_ids.0');
    expect((await ack(a.id, [])).status).toBe(422);
  });

  it('a url receiver has no queue: receive and ack answer 409', async () => {
    const hook = await register({ receiver: { kind: 'url', url: 'http://127.0.0.1:9/x' } });
    const stream = await t.call(`/v1/custom-objects/${hook.id}/deliveries`);
    expect(stream.status).toBe(409);
    expect((await envelope(stream)).code).toBe('invalid_state');
    const res = await ack(hook.id, ['dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(res.status).toBe(409);
  });
});

describe('unregister', () => {
  it('deletes the object, ends its open streams, and retires its publish token', async () => {
    const obj = await register();
    await published(obj.id, { event: 'ping' }, obj.publish_token);
    const stream = await t.call(`/v1/custom-objects/${obj.id}/deliveries`);
    const reading = readFrames(stream, () => false, 5_000);
    await new Promise((r) => setTimeout(r, 100));
    const del = await t.call(`/v1/custom-objects/${obj.id}`, { method: 'DELETE' });
    expect(await del.json()).toEqual({ id: obj.id, deleted: true });
    const { frames, ended } = await reading;
    expect(ended).toBe(true);
    expect(seqs(frames)).toHaveLength(1);
    expect((await t.call(`/v1/custom-objects/${obj.id}`)).status).toBe(404);
    expect((await publish(obj.id, { event: 'ping' }, obj.publish_token)).status).toBe(401);
    expect((await t.call(`/v1/custom-objects/${obj.id}`, { method: 'DELETE' })).status).toBe(404);
    const [gone] = await objectEvents('object.unregistered', obj.id);
    expect(gone?.payload).toEqual({ object_id: obj.id, dropped_pending: 1 });
  });
});
