/**
 * The cases the route fuzz (route-fuzz.test.ts) sends one route: valid-shaped inputs made from
 * its zod schemas and kept harmless, then each part of the request broken in turn (the body
 * whole and field by field, the query, each path parameter, the method, a few headers). Which
 * of the many possible breaks a route gets is drawn by its seeded `Rng`.
 */
import { join } from 'node:path';
import { ID_PREFIXES, type IdKind, type RouteDef, routes as table } from '@svc/protocol';
import type { z } from 'zod';
import {
  BAD_BODIES,
  BAD_FIELDS,
  BAD_PARAMS,
  BAD_QUERY_SHAPES,
  BAD_QUERY_VALUES,
  DEAD_URL,
  oddValuesOf,
  type Rng,
  SCALE,
  seedOf,
  validSample,
} from './route-fuzz-inputs.ts';
import type { Sent } from './route-fuzz-send.ts';

type Json = Record<string, unknown>;

/** What the walk made that valid-shaped inputs must name. */
export interface CaseEnv {
  /** A folder of the walk's own: bash runs, files are written and shares point there. */
  scratch: string;
  /** Values of reference fields (`parent_id`, `upload_id`, `profile`, …) that exist. */
  refs: Json;
}

/** What a route's path parameters name: fresh ids, and the same kinds in other states. */
export interface ParamValues {
  params: Record<string, string>;
  /** Per parameter, ids of its kind past their first state (ended, paused, answered, deleted). */
  states: Record<string, string[]>;
}

/** Never fires during the walk: 1 January, midnight. */
export const YEARLY = '0 0 1 1 *';
const ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
/** A well-formed id of `kind` that names nothing. */
export const absent = (kind: IdKind) => `${ID_PREFIXES[kind]}${ULID}`;
export const KINDS = Object.keys(ID_PREFIXES) as IdKind[];

/** The kind of id a parameter takes, if it takes exactly one. */
export function kindOf(schema: z.ZodType): IdKind | undefined {
  const kinds = KINDS.filter((kind) => schema.safeParse(absent(kind)).success);
  return kinds.length === 1 ? kinds[0] : undefined;
}

// ── valid-shaped inputs ─────────────────────────────────────────────────────────────────────

const REAL_PROVIDERS = new Set(['anthropic', 'openai', 'openai-compatible']);

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every model a body names replays a script: a real provider would be called over the network. */
function scriptedModels(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scriptedModels);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = scriptedModels(v);
  if (typeof out.provider === 'string' && REAL_PROVIDERS.has(out.provider) && 'model' in out) {
    out.provider = 'scripted';
  }
  return out;
}

/** `value` with the references it holds set to things that exist, and no cursor or version. */
function withRefs(value: Json, env: CaseEnv): Json {
  const v = { ...value };
  for (const key of Object.keys(v)) if (Object.hasOwn(env.refs, key)) v[key] = env.refs[key];
  delete v.after;
  delete v.if_version;
  return v;
}

/**
 * What a valid-shaped body keeps whatever was generated: no wait past 0 s (a long poll is no
 * hang), no expiry and no timer wake within the walk (a timer firing mid-walk would write an
 * event into another case's window), no endpoint but one that refuses, and per route a
 * harmless command, a scratch path, a schedule that never fires, a queue receiver, a listener
 * on 127.0.0.1.
 */
function pinBody(route: RouteDef, value: unknown, env: CaseEnv): unknown {
  if (!isObject(value)) return value;
  const v = withRefs(scriptedModels(value) as Json, env);
  if ('timeout_s' in ((route.body as { shape?: object }).shape ?? {})) v.timeout_s = 0;
  if (route.id !== 'connect.create') delete v.expires_in_s;
  if ('endpoint' in v) v.endpoint = DEAD_URL;
  if (v.for === 'timer') v.seconds = 31_536_000;
  const pins: Record<string, Json> = {
    'bash.run': { command: 'true', cwd: env.scratch },
    'files.write': { path: join(env.scratch, 'fuzz.txt') },
    'shares.create': { path: env.scratch },
    'crons.create': { schedule: YEARLY },
    'customObjects.register': { receiver: { kind: 'queue' } },
    'connect.create': { host: '127.0.0.1', port: 0 },
  };
  return { ...v, ...pins[route.id] };
}

/** Fields no mutation replaces: the path a file is written to, the address a listener binds. */
const FROZEN: Readonly<Record<string, readonly string[]>> = {
  'files.write': ['path'],
  'connect.create': ['host', 'port'],
};

/** Long polls answer at once (`timeout_s=0`); a wait of the default 30 s would read as a hang. */
const WAIT_PINS: Readonly<Record<string, string>> = { timeout_s: '0', wait_s: '0' };

/** The wait pins of `route`'s query. */
function waitPinsOf(route: RouteDef): Record<string, string> {
  const keys = Object.keys(route.query?.shape ?? {});
  return Object.fromEntries(Object.entries(WAIT_PINS).filter(([k]) => keys.includes(k)));
}

/** Query values a valid-shaped query keeps: a file that exists, a document that does. */
function queryPins(route: RouteDef, env: CaseEnv): Record<string, string> {
  const pins: Record<string, Record<string, string>> = {
    'files.read': { path: join(env.scratch, 'seed.txt') },
    'files.list': { path: env.scratch },
    'memory.get': { space: 'user', path: 'fuzz/notes.md' },
    'memory.delete': { space: 'user', path: 'fuzz/notes.md' },
  };
  return { ...waitPinsOf(route), ...pins[route.id] };
}

function validQuery(route: RouteDef, seed: number, env: CaseEnv): Record<string, string> {
  if (route.query === undefined) return {};
  const pin = (v: unknown) => (isObject(v) ? { ...withRefs(v, env), ...queryPins(route, env) } : v);
  const sample = validSample(route.query, seed, pin);
  return isObject(sample) ? (sample as Record<string, string>) : waitPinsOf(route);
}

/** Paths to the values inside a body, three levels deep, an array's first item standing for all. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (prefix.length >= 3) return [];
  let keys: string[] = [];
  if (Array.isArray(value)) keys = value.length > 0 ? ['0'] : [];
  else if (isObject(value)) keys = Object.keys(value);
  return keys.flatMap((k) => {
    const path = [...prefix, k];
    return [path, ...leafPaths((value as Json)[k], path)];
  });
}

const MARK = '@@fuzz@@';

/** `body` as JSON text with the value at `path` replaced by the raw JSON `raw`. */
function withRaw(body: unknown, path: string[], raw: string): string {
  const copy = structuredClone(body) as Json;
  let at: Json = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Json;
  at[path.at(-1)!] = MARK;
  return JSON.stringify(copy).replace(`"${MARK}"`, () => raw);
}

// ── cases ───────────────────────────────────────────────────────────────────────────────────

/** A request's parts before a bearer is chosen. */
export interface Parts {
  method: string;
  params: Record<string, string>;
  /** As it goes on the wire (already percent-encoded, or deliberately not). */
  query: string;
  body?: string | Uint8Array;
  type?: string;
  headers?: Record<string, string>;
}

export interface RouteCase {
  label: string;
  parts: Parts;
  /** The request goes to the route's own path: a success must match its response schema. */
  own: boolean;
}

const enc = encodeURIComponent;
const queryText = (q: Record<string, string>) =>
  Object.entries(q)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&');

/** The request `parts` make, with `auth` as its `Authorization` (none when null). */
export function sentOf(route: RouteDef, parts: Parts, auth: string | null): Sent {
  const path = route.path.replace(/\{(\w+)\}/g, (_, p: string) => parts.params[p] ?? '');
  const headers: Record<string, string> = { ...parts.headers };
  if (parts.type !== undefined) headers['content-type'] = parts.type;
  if (auth !== null) headers.authorization = auth;
  const sent: Sent = {
    method: parts.method,
    target: parts.query === '' ? path : `${path}?${parts.query}`,
    headers,
  };
  if (parts.body !== undefined) sent.body = parts.body;
  return sent;
}

/**
 * The cases of one route: first the valid-shaped ones (the first of them the request every other
 * case breaks one part of), then bad bodies, fields, queries, parameters, method and headers.
 */
export function casesOf(route: RouteDef, values: ParamValues, r: Rng, env: CaseEnv): RouteCase[] {
  const seeds = [0, 1, 2].map((i) => seedOf(route.id) + i);
  const queries = seeds.map((seed) => validQuery(route, seed, env));
  const samples = seeds.map((seed) =>
    route.body === undefined
      ? undefined
      : validSample(route.body, seed, (v) => pinBody(route, v, env)),
  );
  const q = queries[0]!;
  const query = queryText(q);
  const sample = samples[0];
  let validBody: string | undefined;
  if (route.consumes !== undefined) validBody = 'raw bytes';
  else if (route.method !== 'GET') validBody = JSON.stringify(sample ?? {});
  const base: Parts = {
    method: route.method,
    params: values.params,
    query,
    ...(validBody !== undefined && {
      body: validBody,
      type: route.consumes ?? 'application/json',
    }),
  };
  const out: RouteCase[] = [];
  const add = (label: string, parts: Partial<Parts>, own = true) =>
    out.push({ label, parts: { ...base, ...parts }, own });

  add(sample === undefined && route.body !== undefined ? 'empty object body' : 'valid-shaped', {});
  const seen = new Set([`${query} ${base.body}`]);
  for (const i of [1, 2]) {
    const more: Partial<Parts> = { query: queryText(queries[i]!) };
    if (samples[i] !== undefined) more.body = JSON.stringify(samples[i]);
    const key = `${more.query} ${more.body ?? base.body}`;
    if (!seen.has(key)) add(`valid-shaped #${i + 1}`, more);
    seen.add(key);
  }
  if (route.method !== 'GET') bodyCases(route, sample, r, add);
  queryCases(route, q, r, add);
  paramCases(route, values, r, add);

  const methods = new Set(table.filter((x) => x.path === route.path).map((x) => x.method));
  const wrong = ['DELETE', 'PATCH', 'PUT', 'POST', 'GET'].find((m) => !methods.has(m as never));
  if (wrong !== undefined) add(`method ${wrong}`, { method: wrong }, false);
  if (route.method === 'GET') add('method HEAD', { method: 'HEAD' });
  add('header: Idempotency-Key too long', { headers: { 'idempotency-key': 'k'.repeat(300) } });
  add('header: Svc-Request-Id odd', { headers: { 'svc-request-id': '../..;\t<x>' } });
  add('header: Svc-Request-Id given', { headers: { 'svc-request-id': 'fuzz:req-1.a_B' } });
  if (route.stream === 'sse') {
    for (const id of ['abc', '-1', '9'.repeat(30)]) {
      add(`header: Last-Event-ID ${id.slice(0, 12)}`, { headers: { 'last-event-id': id } });
    }
  }
  return out;
}

type Add = (label: string, parts: Partial<Parts>, own?: boolean) => void;

function bodyCases(route: RouteDef, sample: unknown, r: Rng, add: Add): void {
  const bodies = route.body === undefined ? r.some(BAD_BODIES, 3) : BAD_BODIES;
  for (const [label, body, type] of bodies) add(`body: ${label}`, { body, type });
  if (route.body === undefined || !isObject(sample)) return;
  const text = JSON.stringify(sample);
  const rest = text === '{}' ? '}' : `,${text.slice(1)}`;
  add('body: an unknown field', { body: `{"__fuzz__":1${rest}` });
  add('body: __proto__', { body: `{"__proto__":{"polluted":true}${rest}` });
  add('body: as text/plain', { type: 'text/plain;charset=UTF-8' });
  add('body: as application/xml', { type: 'application/xml' });
  add('body: after a BOM', { body: `\ufeff${text}` });
  add('body: twice', { body: `${text}${text}` });
  // The limit is the request path's, the same for every route: an eighth of them carry the cost.
  if (r.next() < 0.125 * SCALE) {
    add('body: past 2 MiB', { body: `{"__fuzz__":"${'x'.repeat(2 * 1024 * 1024)}"${rest}` });
  }
  const frozen = FROZEN[route.id] ?? [];
  const paths = leafPaths(sample).filter((p) => !frozen.includes(p[0]!));
  const pairs = paths.flatMap((p) => BAD_FIELDS.map((f) => [p, f] as const));
  for (const [path, [label, raw]] of r.some(pairs, 14 * SCALE)) {
    add(`field ${path.join('.')}: ${label}`, { body: withRaw(sample, path, raw) });
  }
  const odd = paths.flatMap((p) => oddValuesOf(p.at(-1)!).map((v) => [p, v] as const));
  for (const [path, value] of r.some(odd, 6 * SCALE)) {
    const label = `field ${path.join('.')}: ${JSON.stringify(value).slice(0, 40)}`;
    add(label, { body: withRaw(sample, path, JSON.stringify(value)) });
  }
}

function queryCases(route: RouteDef, q: Record<string, string>, r: Rng, add: Add): void {
  const keys = Object.keys(route.query?.shape ?? {});
  const query = queryText(q);
  if (keys.length > 0) {
    /** The valid query without `k`, then `tail` (raw, as it goes on the wire). */
    const but = (k: string, tail: string) => {
      const others = queryText(Object.fromEntries(Object.entries(q).filter(([x]) => x !== k)));
      return others === '' ? tail : `${others}&${tail}`;
    };
    const pairs = keys.flatMap((k) => BAD_QUERY_VALUES.map((v) => [k, v] as const));
    for (const [k, v] of r.some(pairs, 12 * SCALE)) {
      add(`query ${k}=${v.slice(0, 20)}`, { query: but(k, `${k}=${v}`) });
    }
    const odd = keys.flatMap((k) =>
      oddValuesOf(k).flatMap((v) => (typeof v === 'string' ? [[k, v] as const] : [])),
    );
    for (const [k, v] of r.some(odd, 4 * SCALE)) {
      add(`query ${k}=${v.slice(0, 20)}`, { query: but(k, `${k}=${enc(v)}`) });
    }
    for (const k of r.some(keys, 2)) {
      const bad = r.pick(BAD_QUERY_VALUES);
      const good = enc(q[k] ?? '1');
      add(`query ${k} twice, bad last`, { query: but(k, `${k}=${good}&${k}=${bad}`) });
      add(`query ${k} twice, bad first`, { query: but(k, `${k}=${bad}&${k}=${good}`) });
    }
    add('query: an unknown key', { query: query === '' ? '__fuzz__=1' : `${query}&__fuzz__=1` });
  }
  // Whatever else the query holds, a long poll is still told not to wait.
  const pinned = queryText(waitPinsOf(route));
  for (const shape of keys.length > 0 ? BAD_QUERY_SHAPES : r.some(BAD_QUERY_SHAPES, 2)) {
    add(`query: ${shape.slice(0, 30)}`, { query: pinned === '' ? shape : `${pinned}&${shape}` });
  }
}

function paramCases(route: RouteDef, values: ParamValues, r: Rng, add: Add): void {
  for (const [param, value] of Object.entries(values.params)) {
    const kind = kindOf(route.params!.shape[param] as z.ZodType);
    const states = values.states[param] ?? [];
    const others = kind === undefined ? [] : KINDS.filter((k) => k !== kind).map(absent);
    for (const id of states) add(`param ${param}=${id} (another state)`, naming(param, id));
    const bad = [
      ...(kind === undefined ? [] : [absent(kind), r.pick(others)]),
      value.toLowerCase(),
      `${value}%20`,
      `${value}%2F`,
      ...r.some(BAD_PARAMS, 6 * SCALE),
    ];
    for (const v of bad) add(`param ${param}=${v.slice(0, 30)}`, naming(param, v), false);
  }

  function naming(param: string, v: string): Partial<Parts> {
    return { params: { ...values.params, [param]: v } };
  }
}
