/**
 * Crons over the daemon's socket: the routes, visibility and scopes, manual and scheduled fires,
 * the claim that keeps a scheduled time to one fire, and `poke`'s missed policy. A second
 * connection to the database plays a racing daemon and moves times into the past.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronService } from '../src/crons/service.ts';
import { eventLog } from '../src/events/log.ts';
import { nodeService } from '../src/nodes/service.ts';
import { openStore, type Store } from '../src/store/index.ts';
import { envelope, json } from './helpers.ts';
import { type Answer, type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
let side: Store;
let scheduler: string;
let lister: string;
let other: string;
beforeAll(async () => {
  t = await startNodesDaemon();
  side = openStore(join(t.home, 'svc.db'));
  scheduler = (await t.appToken(['svc:llm', 'svc:schedule'], { app_id: 'app-s' })).token;
  lister = (await t.appToken(['svc:llm'], { app_id: 'app-s' })).token;
  other = (await t.appToken(['svc:llm', 'svc:schedule'], { app_id: 'app-o' })).token;
});
afterAll(async () => {
  side.db.close();
  await t.stop();
});

/** Never fires during a test: 1 January, midnight. */
const YEARLY = '0 0 1 1 *';

const createCron = async (body: Record<string, unknown> = {}, token?: string) => {
  const { task, ...rest } = body;
  const res = await t.post(
    '/v1/crons',
    {
      schedule: YEARLY,
      task: { task: 'a scheduled task', model: SCRIPTED, ...(task as object) },
      ...rest,
    },
    token,
  );
  if (res.status !== 200)
    throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};

const del = async (path: string, token?: string): Promise<Answer> => {
  const res = await t.call(path, { method: 'DELETE', ...(token !== undefined && { token }) });
  return { status: res.status, body: await res.json() };
};

const firedEvents = (cronId: string) =>
  side.events
    .list({ after: 0, limit: 1000, kinds: ['cron.fired'] })
    .filter((e) => e.subject === cronId)
    .map((e) => JSON.parse(e.payload));

/** Moves a cron's next time into the past, as if the daemon had slept through it. */
const backdate = (cronId: string, at: string) =>
  side.db.sqlite.prepare('UPDATE crons SET next_run_at = ? WHERE id = ?').run(at, cronId);

describe('crons: create, list, retrieve, pause, resume, delete', () => {
  it('creates with defaults and the next time in its time zone', async () => {
    const cron = await createCron({ schedule: '0 9 * * *', timezone: 'Asia/Tokyo' });
    expect(cron).toMatchObject({
      name: 'a scheduled task',
      schedule: '0 9 * * *',
      timezone: 'Asia/Tokyo',
      task: { task: 'a scheduled task', model: SCRIPTED },
      state: 'active',
      missed: 'skip',
      overlap: 'skip',
      last_run_at: null,
      last_node_id: null,
      fire_count: 0,
      app_id: null,
    });
    expect(cron.id).toMatch(/^cron_[0-9A-Z]{26}$/);
    // 09:00 in Tokyo (UTC+9, no daylight saving) is midnight UTC.
    expect(cron.next_run_at).toMatch(/T00:00:00\.000Z$/);
    expect(Date.parse(cron.next_run_at)).toBeGreaterThan(Date.now());
    const utc = await createCron({ name: 'nightly', missed: 'run_once' });
    expect(utc).toMatchObject({ name: 'nightly', timezone: 'UTC', missed: 'run_once' });
  });

  it('lists newest first with pages and a state filter; retrieves by id', async () => {
    const a = await createCron();
    const b = await createCron();
    const page = await t.get('/v1/crons?limit=1');
    expect(page.body).toMatchObject({ data: [{ id: b.id }], has_more: true, next_cursor: b.id });
    const next = await t.get(`/v1/crons?limit=1&after=${b.id}`);
    expect(next.body.data[0].id).toBe(a.id);
    await t.post(`/v1/crons/${a.id}/pause`);
    const paused = await t.get('/v1/crons?state=paused');
    expect(paused.body.data.map((c: { id: string }) => c.id)).toEqual([a.id]);
    const active = await t.get('/v1/crons?state=active&limit=200');
    expect(active.body.data.map((c: { id: string }) => c.id)).not.toContain(a.id);
    expect((await t.get(`/v1/crons/${b.id}`)).body).toEqual(b);
    expect((await t.get('/v1/crons?state=sleeping')).status).toBe(422);
  });

  it('pauses and resumes idempotently; resume counts the next time from now', async () => {
    const cron = await createCron();
    const paused = await t.post(`/v1/crons/${cron.id}/pause`);
    expect(paused.body).toMatchObject({ state: 'paused', next_run_at: null });
    const again = await t.post(`/v1/crons/${cron.id}/pause`);
    expect(again.body).toEqual(paused.body);
    const resumed = await t.post(`/v1/crons/${cron.id}/resume`);
    expect(resumed.body).toMatchObject({ state: 'active', next_run_at: cron.next_run_at });
    const still = await t.post(`/v1/crons/${cron.id}/resume`);
    expect(still.body).toEqual(resumed.body);
    const kinds = side.events
      .list({ after: 0, limit: 1000 })
      .filter((e) => e.subject === cron.id)
      .map((e) => e.kind);
    expect(kinds).toEqual(['cron.created', 'cron.paused', 'cron.resumed']);
  });

  it('deletes: the answer, then 404', async () => {
    const cron = await createCron();
    expect(await del(`/v1/crons/${cron.id}`)).toEqual({
      status: 200,
      body: { id: cron.id, deleted: true },
    });
    const gone = await t.get(`/v1/crons/${cron.id}`);
    expect(gone.status).toBe(404);
    expect((await del(`/v1/crons/${cron.id}`)).status).toBe(404);
  });

  it('refuses a bad expression or time zone with 422 naming the field', async () => {
    for (const [body, field] of [
      [{ schedule: 'every day' }, 'schedule'],
      [{ schedule: '61 * * * *' }, 'schedule'],
      // croner takes these, but no time after now matches them
      [{ schedule: '0 0 30 2 *' }, 'schedule'],
      [{ schedule: '0 0 0 1 1 * 2020' }, 'schedule'],
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ] as const) {
      const res = await t.call(
        '/v1/crons',
        json({ schedule: YEARLY, task: { task: 'x', model: SCRIPTED }, ...body }),
      );
      expect(res.status).toBe(422);
      expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field });
    }
    const noTask = await t.post('/v1/crons', { schedule: YEARLY });
    expect(noTask.status).toBe(422);
    const parent = await t.post('/v1/crons', {
      schedule: YEARLY,
      task: { task: 'x', model: SCRIPTED, parent_id: 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
    });
    expect(parent.status).toBe(422);
  });

  it('takes 5, 6 (seconds first) or 7 fields (a year last), as docs/api-v1.md says', async () => {
    const year = new Date().getUTCFullYear() + 1;
    for (const schedule of ['0 9 * * 1', '30 0 9 * * 1', `0 0 9 1 1 * ${year}`]) {
      const res = await t.post('/v1/crons', { schedule, task: { task: 'x', model: SCRIPTED } });
      expect(res.status, schedule).toBe(200);
      expect(res.body.next_run_at, schedule).not.toBeNull();
    }
  });

  it('answers one cron for a retried create with the same Idempotency-Key', async () => {
    const body = { schedule: YEARLY, task: { task: 'once', model: SCRIPTED } };
    const first = await t.call('/v1/crons', json(body, 'POST', { 'idempotency-key': 'cron-k1' }));
    const second = await t.call('/v1/crons', json(body, 'POST', { 'idempotency-key': 'cron-k1' }));
    expect(((await second.json()) as { id: string }).id).toBe(
      ((await first.json()) as { id: string }).id,
    );
  });
});

describe('crons: scopes and visibility', () => {
  it('needs svc:schedule to create, pause, resume, run, delete and poke (403 scope_missing)', async () => {
    const res = await t.call('/v1/crons', {
      ...json({ schedule: YEARLY, task: { task: 'x', model: SCRIPTED } }),
      token: lister,
    });
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'scope_missing', field: 'svc:schedule' });
    const cron = await createCron({}, scheduler);
    for (const verb of ['pause', 'resume', 'run', 'poke']) {
      const answer = await t.post(`/v1/crons/${cron.id}/${verb}`, {}, lister);
      expect(answer.status, verb).toBe(403);
    }
    expect((await del(`/v1/crons/${cron.id}`, lister)).status).toBe(403);
    // Reading needs no scope: the same app's token without svc:schedule sees it.
    expect((await t.get(`/v1/crons/${cron.id}`, lister)).status).toBe(200);
  });

  it('an app sees only its own crons; the owner sees all', async () => {
    const mine = await createCron({}, scheduler);
    expect(mine.app_id).toBe('app-s');
    const owners = await createCron();
    const theirs = await createCron({}, other);
    const listed = (await t.get('/v1/crons?limit=200', scheduler)).body.data.map(
      (c: { id: string; app_id: string }) => c.app_id,
    );
    expect(new Set(listed)).toEqual(new Set(['app-s']));
    for (const id of [owners.id, theirs.id]) {
      expect((await t.get(`/v1/crons/${id}`, scheduler)).status).toBe(404);
      expect((await t.post(`/v1/crons/${id}/pause`, {}, scheduler)).status).toBe(404);
      expect((await del(`/v1/crons/${id}`, scheduler)).status).toBe(404);
    }
    const all = (await t.get('/v1/crons?limit=200')).body.data.map((c: { id: string }) => c.id);
    expect(all).toEqual(expect.arrayContaining([mine.id, owners.id, theirs.id]));
  });

  it("refuses a task whose scopes exceed the app's ceiling, as a node create would", async () => {
    const nodes = () => side.db.sqlite.prepare('SELECT count(*) AS n FROM nodes').get();
    const before = nodes();
    const res = await t.post(
      '/v1/crons',
      { schedule: YEARLY, task: { task: 'x', model: SCRIPTED, scopes: ['svc:llm', 'svc:act'] } },
      scheduler,
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    // The trial create that found it left nothing behind.
    expect(nodes()).toEqual(before);
  });

  it('a node token may not create crons (403 forbidden)', async () => {
    const node = await t.createNode({ task: 'a scheduler node' });
    const res = await t.post(
      '/v1/crons',
      { schedule: YEARLY, task: { task: 'x', model: SCRIPTED } },
      t.nodeToken(node.id),
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('crons: fires', () => {
  it('run fires now, even paused: a root node as the creator, and a cron.fired event', async () => {
    const cron = await createCron(
      { task: { task: 'run me', title: 'manual', metadata: { via: 'cron' } } },
      scheduler,
    );
    await t.post(`/v1/crons/${cron.id}/pause`, {}, scheduler);
    const res = await t.post(`/v1/crons/${cron.id}/run`, {}, scheduler);
    expect(res.status).toBe(200);
    const { cron: after, node } = res.body;
    expect(node).toMatchObject({
      parent_id: null,
      task: 'run me',
      title: 'manual',
      app_id: 'app-s',
      scopes: ['svc:llm', 'svc:schedule'],
      metadata: { via: 'cron' },
      state: 'queued',
    });
    expect(node.root_id).toBe(node.id);
    expect(after).toMatchObject({
      state: 'paused',
      next_run_at: null,
      fire_count: 1,
      last_node_id: node.id,
    });
    expect(after.last_run_at).not.toBeNull();
    expect(firedEvents(cron.id)).toEqual([
      {
        cron_id: cron.id,
        scheduled_at: after.last_run_at,
        trigger: 'manual',
        node_id: node.id,
        error: null,
      },
    ]);
  });

  it('svc:schedule alone makes and runs a cron (SPEC); its nodes stay inside that ceiling', async () => {
    const scheduleOnly = (await t.appToken(['svc:schedule'], { app_id: 'app-l' })).token;
    const cron = await createCron({}, scheduleOnly);
    const fired = await t.post(`/v1/crons/${cron.id}/run`, {}, scheduleOnly);
    expect(fired.status).toBe(200);
    expect(fired.body.node).toMatchObject({ app_id: 'app-l', scopes: ['svc:schedule'] });
    // The ceiling still holds: a task asking for more is refused at create, as a node create is.
    const wider = await t.post(
      '/v1/crons',
      { schedule: YEARLY, task: { task: 'x', scopes: ['svc:llm', 'svc:act'] } },
      scheduleOnly,
    );
    expect(wider.status).toBe(403);
    expect(wider.body.error).toMatchObject({ code: 'scope_missing' });
  });

  it("fires nothing once the creator's token is revoked, and records why", async () => {
    const { token, token_id } = await t.appToken(['svc:llm', 'svc:schedule'], {
      app_id: 'app-r',
    });
    const cron = await createCron({}, token);
    expect((await del(`/v1/tokens/${token_id}`)).status).toBe(200);
    const before = side.db.sqlite
      .prepare("SELECT count(*) AS n FROM nodes WHERE app_id = 'app-r'")
      .get();
    const res = await t.post(`/v1/crons/${cron.id}/run`);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/was revoked/);
    expect(
      side.db.sqlite.prepare("SELECT count(*) AS n FROM nodes WHERE app_id = 'app-r'").get(),
    ).toEqual(before);
    const [event] = firedEvents(cron.id);
    expect(event).toMatchObject({ node_id: null, error: { code: 'forbidden' } });
    expect((await t.get(`/v1/crons/${cron.id}`)).body).toMatchObject({
      fire_count: 1,
      last_node_id: null,
    });
  });

  it('a per-second cron fires on schedule and its node exists', async () => {
    const cron = await createCron({ schedule: '* * * * * *', task: { task: 'every second' } });
    let seen = cron;
    for (let i = 0; i < 40 && seen.fire_count === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = (await t.get(`/v1/crons/${cron.id}`)).body;
    }
    await t.post(`/v1/crons/${cron.id}/pause`);
    expect(seen.fire_count).toBeGreaterThan(0);
    const node = await t.get(`/v1/nodes/${seen.last_node_id}`);
    expect(node.body).toMatchObject({ task: 'every second', parent_id: null });
    const events = firedEvents(cron.id);
    expect(events[0]).toMatchObject({ trigger: 'schedule', node_id: expect.any(String) });
    // One fire per scheduled time: no scheduled_at repeats.
    const times = events.map((e) => e.scheduled_at);
    expect(new Set(times).size).toBe(times.length);
  });

  it("overlap skip: while the last fire's node still works, its times pass without a fire", async () => {
    // The daemon's one broker slot is held by an idle stand-in: every node here stays live.
    const cron = await createCron({ schedule: '* * * * * *', task: { task: 'one at a time' } });
    const skips = () =>
      side.events
        .list({ after: 0, limit: 1000, kinds: ['cron.skipped'] })
        .filter((e) => e.subject === cron.id)
        .map((e) => JSON.parse(e.payload));
    for (let i = 0; i < 50 && skips().length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    await t.post(`/v1/crons/${cron.id}/pause`);
    const seen = (await t.get(`/v1/crons/${cron.id}`)).body;
    expect(seen.fire_count).toBe(1);
    expect(skips().length).toBeGreaterThanOrEqual(2);
    expect(skips()[0]).toMatchObject({ reason: 'overlap', node_id: seen.last_node_id });
  });

  it('overlap allow: every time fires, live node or not', async () => {
    const cron = await createCron({
      schedule: '* * * * * *',
      overlap: 'allow',
      task: { task: 'pile up' },
    });
    expect(cron.overlap).toBe('allow');
    let seen = cron;
    for (let i = 0; i < 50 && seen.fire_count < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = (await t.get(`/v1/crons/${cron.id}`)).body;
    }
    await t.post(`/v1/crons/${cron.id}/pause`);
    expect(seen.fire_count).toBeGreaterThanOrEqual(2);
  });

  it('two claims of one scheduled time make one node', async () => {
    const cron = await createCron({ task: { task: 'claimed once' } });
    const at = new Date(Date.now() - 1000).toISOString();
    backdate(cron.id, at);
    // A second writer with the daemon's own services, racing for the same time.
    const events = eventLog(side);
    const nodes = nodeService({
      store: side,
      events,
      profiles: { settings: () => ({}) as never },
      models: {
        config: () => ({ default: null, profiles: {}, updated_at: '' }) as never,
        requireReady: () => {},
      },
    });
    const racer = cronService({ store: side, events, nodes });
    const first = racer.claimAndFire(cron.id, at, 'schedule', Date.now());
    const second = racer.claimAndFire(cron.id, at, 'schedule', Date.now());
    expect(first?.node?.task).toBe('claimed once');
    expect(second).toBeNull();
    expect(firedEvents(cron.id)).toHaveLength(1);
    const count = side.db.sqlite
      .prepare("SELECT count(*) AS n FROM nodes WHERE task = 'claimed once'")
      .get();
    expect(count).toEqual({ n: 1 });
    const after = (await t.get(`/v1/crons/${cron.id}`)).body;
    expect(after.fire_count).toBe(1);
    expect(Date.parse(after.next_run_at)).toBeGreaterThan(Date.now());
  });
});

describe('crons: a wall clock set back', () => {
  const HOURLY = '0 * * * *';
  const nextHour = (ms: number) => {
    const d = new Date(ms);
    d.setUTCMinutes(60, 0, 0);
    return d.toISOString();
  };
  const rescheduled = (cronId: string) =>
    side.events
      .list({ after: 0, limit: 10_000, kinds: ['cron.rescheduled'] })
      .filter((e) => e.subject === cronId)
      .map((e) => JSON.parse(e.payload));

  it('next runs counted from a later clock are counted from now again', async () => {
    const cron = await createCron({ schedule: HOURLY });
    // As if the next run had been counted while the clock read three hours later.
    const later = nextHour(Date.now() + 3 * 3_600_000);
    backdate(cron.id, later);
    const events = eventLog(side);
    const nodes = nodeService({
      store: side,
      events,
      profiles: { settings: () => ({}) as never },
      models: {
        config: () => ({ default: null, profiles: {}, updated_at: '' }) as never,
        requireReady: () => {},
      },
    });
    const scheduler = cronService({ store: side, events, nodes });
    const now = Date.now();
    // The first tick looks: the clock may have been set back while the daemon was down.
    expect(scheduler.fireDue(now, 30_000)).toEqual([]);
    const first = (await t.get(`/v1/crons/${cron.id}`)).body;
    expect(first.next_run_at).toBe(nextHour(now));
    expect(rescheduled(cron.id)).toEqual([
      { cron_id: cron.id, reason: 'clock_set_back', from: later, next_run_at: nextHour(now) },
    ]);
    // A tick later than the last does not look (a next run after now is the normal case) ...
    backdate(cron.id, later);
    scheduler.fireDue(now + 1_000, 30_000);
    expect((await t.get(`/v1/crons/${cron.id}`)).body.next_run_at).toBe(later);
    // ... a tick earlier than the last does.
    scheduler.fireDue(now + 500, 30_000);
    expect((await t.get(`/v1/crons/${cron.id}`)).body.next_run_at).toBe(nextHour(now + 500));
    expect(rescheduled(cron.id)).toHaveLength(2);
    expect(firedEvents(cron.id)).toEqual([]);
  });
});

describe('crons: poke', () => {
  const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

  it('run_once: a time passed unfired fires once, then the next counts from now', async () => {
    const cron = await createCron({ missed: 'run_once' });
    const missed = anHourAgo();
    backdate(cron.id, missed);
    const poked = (await t.post(`/v1/crons/${cron.id}/poke`)).body;
    expect(poked).toMatchObject({ fire_count: 1, last_run_at: missed });
    expect(poked.next_run_at).toBe(cron.next_run_at);
    expect(firedEvents(cron.id)).toMatchObject([{ scheduled_at: missed, trigger: 'missed' }]);
    const again = (await t.post(`/v1/crons/${cron.id}/poke`)).body;
    expect(again.fire_count).toBe(1);
  });

  it('skip: no fire, the next time from now', async () => {
    const cron = await createCron();
    backdate(cron.id, anHourAgo());
    const poked = (await t.post(`/v1/crons/${cron.id}/poke`)).body;
    expect(poked).toMatchObject({ fire_count: 0, next_run_at: cron.next_run_at });
    expect(firedEvents(cron.id)).toEqual([]);
    const kinds = side.events
      .list({ after: 0, limit: 10_000 })
      .filter((e) => e.subject === cron.id);
    expect(kinds.map((e) => e.kind)).toContain('cron.skipped');
  });

  it('a paused cron answers as it is', async () => {
    const cron = await createCron();
    const paused = (await t.post(`/v1/crons/${cron.id}/pause`)).body;
    expect((await t.post(`/v1/crons/${cron.id}/poke`)).body).toEqual(paused);
  });
});

describe('crons in the OpenAPI document', () => {
  it('lists every cron route', async () => {
    const doc = (await (await t.call('/v1/openapi.json', { token: null })).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const ops = (path: string) =>
      Object.values(doc.paths[path] ?? {})
        .map((op) => op.operationId)
        .filter(Boolean)
        .sort();
    expect(ops('/v1/crons')).toEqual(['crons.create', 'crons.list']);
    expect(ops('/v1/crons/{id}')).toEqual(['crons.delete', 'crons.retrieve']);
    for (const verb of ['pause', 'resume', 'run', 'poke']) {
      expect(ops(`/v1/crons/{id}/${verb}`)).toEqual([`crons.${verb}`]);
    }
  });
});
