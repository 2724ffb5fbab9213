/**
 * The route fuzz: every route of the `/v1` table (packages/protocol/src/routes/table.ts), sent a
 * bounded, seeded set of bad inputs (route-fuzz-cases.ts) on one real daemon, as the owner (or
 * the route's own node or publish token), a low-scope app, a node, the node a path names, and
 * with no or a garbage bearer. Each route gets fresh resources (a node, a run, a cron, a human
 * request, …, and the same kinds in later states) so its parameters name real ids as well as
 * bad ones.
 *
 * Every answer must come within `HANG_MS`, carry `Svc-Request-Id`, be under 500 (503
 * `not_ready` only where docs/api-v1.md says so), a DESIGN §6 envelope on every 4xx, and on a
 * success the JSON the route's response schema describes; a refusal (and a read) must write
 * nothing; and the daemon must answer `/healthz` after each route. A failure names the route,
 * who sent what, what came back, and the seed: `SVC_FUZZ_SEED` replays or varies the inputs,
 * `SVC_FUZZ_SCALE` sends more of them.
 *
 * Not sent: `shutdown.create` as the owner, which would stop the daemon the rest of the walk
 * needs (every other bearer still sends it and must be refused).
 */
import { realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type IdKind, type RouteDef, routes as table } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { daemonLog, scratchDirs } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';
import {
  absent,
  type CaseEnv,
  casesOf,
  kindOf,
  type ParamValues,
  type RouteCase,
  sentOf,
  YEARLY,
} from './route-fuzz-cases.ts';
import { rng, SCALE, SEED, seedOf } from './route-fuzz-inputs.ts';
import {
  type Answer,
  documentedStatuses,
  problemsOf,
  rawSender,
  reachedRoute,
  type Sent,
} from './route-fuzz-send.ts';

type Json = Record<string, unknown>;

let t: NodesDaemon;
let send: (sent: Sent) => Promise<Answer>;
/** A read-only second connection, to see that a refusal wrote nothing (`dbState`). */
let db: DatabaseSync;
/**
 * Bearers: a low-scope app's, an app's that may act (so scope-gated handlers run for an app too),
 * and a running node's (of a node no route's cases touch).
 */
let app: string;
let actor: string;
let node: string;
/** Bearers that must get a 401 (or a 403, or a public answer) and nothing else. */
let garbage: string[];
let env: CaseEnv;
const newDir = scratchDirs('svc-fuzz-');

/** Owner requests never sent (see the top of this file). */
const OWNER_SKIP = new Set(['shutdown.create']);

/** Path parameters that are no id: a value that exists (or may). */
const NAMES: Readonly<Record<string, string>> = {
  name: 'fuzz-profile',
  var: 'FUZZ_VAR',
  provider: 'openai-compatible',
};

/**
 * The routes that may answer 503 `not_ready` (docs/api-v1.md): a model call, and those taking a
 * JSON Schema whose patterns the daemon has checked (the checker itself may fail).
 */
const NOT_READY = new Set([
  'llm.create',
  'nodes.create',
  'nodes.createAndWait',
  'nodes.parse',
  'runs.start',
  'runs.parse',
  'crons.create',
  'human.requests.create',
  'human.requests.replace',
  'customObjects.register',
]);

beforeAll(async () => {
  t = await startNodesDaemon();
  send = rawSender(t.daemon.socketPath);
  db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
  const scratch = realpathSync(newDir());
  app = (await t.appToken(['svc:llm'], { app_id: 'fuzz-app' })).token;
  const acts = ['svc:llm', 'svc:act', 'svc:schedule', 'svc:files:share'];
  actor = (await t.appToken([...acts, `svc:files:rw:user:${scratch}`], { app_id: 'fuzz-actor' }))
    .token;
  node = await claimedToken((await t.createNode({ task: 'a node whose token calls' })).id);
  const ended = (await t.createNode({ task: 'a node that ended' })).id;
  const endedToken = t.nodeToken(ended);
  await made(`/v1/nodes/${ended}/cancel`, {});
  const revoked = await t.appToken([], { app_id: 'fuzz-revoked' });
  await t.call(`/v1/tokens/${revoked.token_id}`, { method: 'DELETE' });
  const object = await made('/v1/custom-objects', objectBody('fuzz-setup'));
  writeFileSync(join(scratch, 'seed.txt'), 'a file to read');
  await made('/v1/memory/document', { path: 'fuzz/notes.md', content: 'notes' }, 'PUT');
  const upload = await made('/v1/uploads', { filename: 'ref.txt', content_base64: 'aGk=' });
  // The links' signing key is made at the first link: made here, no read of the walk writes.
  await t.call(`/v1/attachments/link?upload_id=${upload.id}`);
  const ref = (await t.createNode({ task: 'a node valid-shaped inputs name' })).id;
  const refs = {
    parent_id: ref,
    root_id: ref,
    node_id: ref,
    upload_id: upload.id,
    profile: 'fuzz-profile',
    scopes: ['svc:llm'],
    timezone: 'UTC',
  };
  env = { scratch, refs };
  await made('/v1/profiles/fuzz-profile', {}, 'PUT');
  await made('/v1/profiles/fuzz-profile/env/FUZZ_VAR', { value: 'v' }, 'PUT');
  garbage = [
    '',
    'Bearer',
    'Bearer garbage',
    `Bearer svc_owner_${'A'.repeat(43)}`,
    `Bearer svc_app_${'0'.repeat(43)}`,
    'Bearer svc_node_x',
    `Basic ${Buffer.from('owner:pw').toString('base64')}`,
    `Bearer ${'x'.repeat(8_000)}`,
    `Bearer ${revoked.token}`,
    `Bearer ${t.ownerToken}x`,
    `Bearer ${object.publish_token as string}`,
    `Bearer ${endedToken}`,
  ];
}, 60_000);

afterAll(async () => {
  db?.close();
  await t?.stop();
});

// ── fresh resources ─────────────────────────────────────────────────────────────────────────

/** A request that must succeed (the walk's own setup); its answer. */
async function made(path: string, body: unknown, method = 'POST', token?: string): Promise<Json> {
  const res = await t.call(path, {
    method,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    ...(token !== undefined && { token }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Json;
}

const objectBody = (name: string) => ({
  name,
  events: { built: {} },
  receiver: { kind: 'queue' },
});

/** A node token of `id`, claimed as a broker would, so its calls get past "not running". */
async function claimedToken(id: string): Promise<string> {
  const bearer = t.nodeToken(id);
  await made(`/v1/nodes/${id}/broker/claim`, { pid: 1, broker_version: 'fuzz' }, 'POST', bearer);
  return bearer;
}

interface Fixture extends ParamValues {
  /** The route's own bearer when it is not the owner's (a node's, a publish token). */
  bearer?: string;
  /** The token of the node a parameter names, acting on itself. */
  self?: string;
}

/** Makes what a route's parameters name, fresh, so no earlier route's cases changed it. */
async function fixtureFor(route: RouteDef): Promise<Fixture> {
  const fixture: Fixture = { params: {}, states: {} };
  const shape = (route.params?.shape ?? {}) as Record<string, z.ZodType>;
  for (const [param, schema] of Object.entries(shape)) {
    const kind = kindOf(schema);
    if (kind === undefined) {
      fixture.params[param] = NAMES[param] ?? 'fuzz';
      continue;
    }
    const made = await freshOf(kind, route);
    fixture.params[param] = made.id;
    if (made.bearer !== undefined) fixture.bearer = made.bearer;
    // A node token acts on its own node only: another node is a 403 before any state counts.
    if (route.auth.kind !== 'node') fixture.states[param] = await otherStatesOf(kind, route);
    if (kind === 'node' && route.auth.kind !== 'node') fixture.self = t.nodeToken(made.id);
  }
  return fixture;
}

async function freshOf(kind: IdKind, route: RouteDef): Promise<{ id: string; bearer?: string }> {
  switch (kind) {
    case 'node': {
      const { id } = await t.createNode({ task: `fuzz ${route.id}` });
      if (route.auth.kind !== 'node') return { id };
      if (route.id === 'broker.claim') return { id, bearer: t.nodeToken(id) };
      return { id, bearer: await claimedToken(id) };
    }
    case 'run': {
      const run = await made(
        '/v1/runs',
        { task: `fuzz ${route.id}`, model: SCRIPTED },
        'POST',
        app,
      );
      return { id: run.id as string };
    }
    case 'cron': {
      const task = { task: `fuzz ${route.id}`, model: SCRIPTED };
      return { id: (await made('/v1/crons', { schedule: YEARLY, task })).id as string };
    }
    case 'human_request':
    case 'ticket': {
      const request = await made('/v1/human/requests', { title: `fuzz ${route.id}?` });
      return { id: (kind === 'ticket' ? request.ticket_id : request.id) as string };
    }
    case 'object': {
      const object = await made('/v1/custom-objects', objectBody(`fuzz ${route.id}`));
      const id = object.id as string;
      return route.auth.kind === 'publish'
        ? { id, bearer: object.publish_token as string }
        : { id };
    }
    case 'upload': {
      const upload = await made('/v1/uploads', { filename: 'f.txt', content_base64: 'aGk=' });
      return { id: upload.id as string };
    }
    case 'share': {
      const share = await made('/v1/shares', {
        app_id: 'fuzz-app',
        path: env.scratch,
        mode: 'read',
      });
      return { id: share.id as string };
    }
    case 'token':
      // Only a token made for this: an owner's or the walk's app's revoked would end the walk.
      return { id: (await t.appToken([], { app_id: 'fuzz-victim' })).token_id };
    default:
      return { id: absent(kind) };
  }
}

/** Ids of `kind` moved past their first state, so a route meets each state it may refuse. */
async function otherStatesOf(kind: IdKind, route: RouteDef): Promise<string[]> {
  const fresh = async () => (await freshOf(kind, route)).id;
  const act = (path: string, body: unknown = {}, method = 'POST', token?: string) =>
    made(path, body, method, token);
  switch (kind) {
    case 'node': {
      const [waiting, failed, done, cancelled] = [
        await fresh(),
        await fresh(),
        await fresh(),
        await fresh(),
      ];
      await act(`/v1/nodes/${waiting}/interrupt`);
      t.broker(failed, 'fail');
      await act(`/v1/nodes/${done}/interrupt`);
      await act(`/v1/nodes/${done}/result`, { result: { ok: true } });
      await act(`/v1/nodes/${cancelled}/cancel`);
      return [waiting, failed, done, cancelled];
    }
    case 'run': {
      const cancelled = await fresh();
      await act(`/v1/runs/${cancelled}/cancel`, {}, 'POST', app);
      return [cancelled];
    }
    case 'cron': {
      const paused = await fresh();
      await act(`/v1/crons/${paused}/pause`);
      return [paused];
    }
    case 'human_request':
    case 'ticket': {
      const answered = await made('/v1/human/requests', { title: 'answered?' });
      await act(`/v1/human/requests/${answered.id}/respond`, { text: 'yes' });
      const cancelled = await made('/v1/human/requests', { title: 'cancelled?' });
      await act(`/v1/human/requests/${cancelled.id}/cancel`);
      const key = kind === 'ticket' ? 'ticket_id' : 'id';
      return [answered[key] as string, cancelled[key] as string];
    }
    case 'object':
    case 'upload':
    case 'share': {
      const gone = await fresh();
      const base = { object: 'custom-objects', upload: 'uploads', share: 'shares' }[kind];
      await act(`/v1/${base}/${gone}`, undefined, 'DELETE');
      return [gone];
    }
    default:
      return [];
  }
}

// ── the walk ────────────────────────────────────────────────────────────────────────────────

/** One request of the walk: a case as one bearer sends it. */
interface Case {
  who: string;
  label: string;
  sent: Sent;
  own: boolean;
}

/**
 * What tells that a request wrote: the event log's last seq (every mutation records its event in
 * its own transaction), SQLite's `data_version` (moves on any other connection's commit), and the
 * latest token touch (`last_used_at`, written at most once a minute per token on use, the one
 * write a refusal may make).
 */
function dbState(): { seq: number; version: number; touched: string | null } {
  const get = (sql: string) => Object.values(db.prepare(sql).get() as Json)[0];
  return {
    seq: get('SELECT coalesce(max(seq), 0) FROM events') as number,
    version: get('PRAGMA data_version') as number,
    touched: get('SELECT max(last_used_at) FROM tokens') as string | null,
  };
}

const eventsAfter = (seq: number) =>
  (db.prepare('SELECT kind, subject, payload FROM events WHERE seq > ? LIMIT 5').all(seq) as Json[])
    .map((e) => `${e.kind} ${e.subject} ${String(e.payload).slice(0, 300)}`)
    .join(', ');

const show = (sent: Sent) => {
  const body =
    sent.body === undefined
      ? ''
      : ` body=${(typeof sent.body === 'string' ? sent.body : `<${sent.body.length} bytes>`).slice(0, 200)}`;
  return `${sent.method} ${sent.target.slice(0, 200)}${body}`;
};

async function walk(route: RouteDef): Promise<string[]> {
  const r = rng(seedOf(route.id));
  const fixture = await fixtureFor(route);
  const own = route.auth.kind === 'node' || route.auth.kind === 'publish';
  const mainWho = own ? route.auth.kind : 'owner';
  const mainAuth = own ? `Bearer ${fixture.bearer}` : `Bearer ${t.ownerToken}`;
  const all = casesOf(route, fixture, r, env);
  const cases: Case[] = [];
  const push = (who: string, auth: string | null, list: RouteCase[]) => {
    for (const c of list)
      cases.push({ who, label: c.label, sent: sentOf(route, c.parts, auth), own: c.own });
  };
  const [valid, ...rest] = all;
  if (!(mainWho === 'owner' && OWNER_SKIP.has(route.id))) push(mainWho, mainAuth, all);
  push('app', `Bearer ${app}`, [valid!, ...r.some(rest, 7 * SCALE)]);
  push('acting app', `Bearer ${actor}`, [valid!, ...r.some(rest, 4 * SCALE)]);
  push('node', `Bearer ${node}`, [valid!, ...r.some(rest, 2)]);
  if (fixture.self !== undefined)
    push('its node', `Bearer ${fixture.self}`, [valid!, ...r.some(rest, 3)]);
  if (own && !OWNER_SKIP.has(route.id))
    push('owner', `Bearer ${t.ownerToken}`, [valid!, ...r.some(rest, 2)]);
  for (const auth of r.some(garbage, 3))
    push(`bearer '${auth.slice(0, 24)}'`, auth === '' ? null : auth, [valid!]);

  const statuses = documentedStatuses(route);
  const failures: string[] = [];
  for (const c of cases) {
    const before = dbState();
    const answer = await send(c.sent);
    const problems = problemsOf(route, c.sent, answer, {
      own: c.own,
      notReady: NOT_READY.has(route.id),
      ...(reachedRoute(route, c.sent) && { statuses }),
    });
    const refused = answer.status >= 400;
    const read = (c.sent.method === 'GET' || c.sent.method === 'HEAD') && answer.status < 400;
    if ((refused || read) && answer.failure === undefined) {
      const after = dbState();
      const what = refused ? 'refusal' : 'read';
      if (after.seq !== before.seq) {
        problems.push(`the event log grew on a ${what}: ${eventsAfter(before.seq)}`);
      } else if (after.version !== before.version && after.touched === before.touched) {
        problems.push(`a ${what} wrote to the database`);
      }
    }
    if (problems.length > 0) {
      failures.push(
        `${route.id} as ${c.who}, ${c.label}: ${show(c.sent)}\n  → ${answer.status} ${answer.text.slice(0, 300)}\n  ✗ ${problems.join('; ')}`,
      );
    }
  }
  const health = await send({ method: 'GET', target: '/healthz', headers: {} });
  if (health.status !== 200)
    failures.push(`${route.id}: /healthz answered ${health.status} after it`);
  return failures;
}

describe(`route fuzz (seed ${SEED})`, () => {
  it.each(table.map((route) => [route.id, route as RouteDef] as const))(
    '%s',
    async (_id, route) => {
      const failures = await walk(route);
      expect(failures, `seed ${SEED}\n${failures.join('\n')}`).toEqual([]);
    },
    60_000,
  );

  it('logged no unhandled error', async () => {
    const log = await daemonLog(t.home);
    expect(log).not.toContain('unhandled error');
    expect(log).not.toContain('answer not written');
  });
});

describe('the fuzz judges what it should', () => {
  const route = table.find((r) => r.id === 'status.get') as RouteDef;
  const sent: Sent = { method: 'GET', target: '/v1/status', headers: {} };
  const id = { 'svc-request-id': 'r1' };
  const judged = (status: number, text: string, headers: Record<string, string> = id) =>
    problemsOf(route, sent, { status, headers, text }, { own: true, notReady: false });
  const envelope = (code: string) =>
    JSON.stringify({ error: { code, message: 'm', request_id: 'r1' } });

  it('passes a well-formed refusal and flags every way one goes wrong', () => {
    expect(judged(404, envelope('not_found'))).toEqual([]);
    expect(judged(500, envelope('internal_error'))).toEqual(['500 internal_error: m']);
    expect(judged(404, 'Not Found')).toEqual(['404, not an error envelope']);
    expect(judged(404, envelope('not_found'), {})).toContain('no Svc-Request-Id');
    expect(judged(400, envelope('not_found'))).toEqual(['code not_found on a 400']);
    expect(judged(405, envelope('method_not_allowed'))).toEqual(['a 405 without Allow']);
    expect(
      problemsOf(
        route,
        sent,
        { status: 503, headers: id, text: envelope('not_ready') },
        { own: true, notReady: true },
      ),
    ).toEqual([]);
  });

  it("flags a status the route's OpenAPI entry does not list, and only on the route itself", () => {
    const statuses = documentedStatuses(route);
    const answer = (status: number, code: string) => ({
      status,
      headers: { ...id, 'x-should-retry': 'false' },
      text: envelope(code),
    });
    const opts = { own: true, notReady: false, statuses };
    expect(problemsOf(route, sent, answer(400, 'invalid_request'), opts)).toEqual([]);
    expect(problemsOf(route, sent, answer(409, 'invalid_state'), opts)).toEqual([
      "status 409 is not in the route's OpenAPI responses",
    ]);
    expect(reachedRoute(route, sent)).toBe(true);
    expect(reachedRoute(route, { ...sent, target: '/v1/status/x' })).toBe(false);
    expect(reachedRoute(route, { ...sent, method: 'DELETE' })).toBe(false);
  });

  it('checks a success against the route response schema', () => {
    const json = { ...id, 'content-type': 'application/json' };
    expect(judged(200, '{"status":"ready"}', json)[0]).toMatch(/^the answer is off its schema/);
    expect(judged(200, '{"status":"ready"}', json)[1]).toMatch(
      /^the answer is off its OpenAPI schema/,
    );
    expect(judged(200, '{"status"', json)).toEqual(['a 200 whose JSON does not parse']);
    expect(judged(200, 'ok', { ...id, 'content-type': 'text/plain' })).toEqual([
      'a 200 that is not JSON',
    ]);
  });

  it('takes no answer in time for a hang', async () => {
    const socketPath = join(env.scratch, 'silent.sock');
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    try {
      const answer = await rawSender(socketPath, 200)(sent);
      expect(problemsOf(route, sent, answer, { own: true, notReady: false })).toEqual([
        'no answer within 200 ms',
      ]);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
