/**
 * The OpenAPI document agrees with the daemon's checks of request bodies and query parameters
 * (issue 26, item 9): each route's schema is judged beside the document's JSON Schema for it (by
 * Ajv, the validator most JavaScript clients use), on seeded valid-shaped inputs and their
 * one-field breaks (the route fuzz's inputs). The document must take every input the daemon's
 * schema takes, so a client generated from it never refuses a good request, and refuse every
 * input the schema refuses, so it is as tight as the check: what a `.refine` checks is said with
 * JSON Schema keywords too.
 */
import { buildOpenApiDocument, type RouteDef, routes, tryParseScope } from '@svc/protocol';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  BAD_FIELDS,
  BAD_QUERY_VALUES,
  oddValuesOf,
  rng,
  SCALE,
  SEED,
  seedOf,
  validSample,
} from './route-fuzz-inputs.ts';

type Json = Record<string, unknown>;
type Operation = {
  parameters: { name: string; in: string; schema: Json }[];
  requestBody?: { content: Record<string, { schema: Json }> };
};
const paths = buildOpenApiDocument().paths as Record<string, Record<string, Operation>>;

/**
 * Where the daemon checks more after the body schema, which the document says at once: a scope
 * string's shape only is the schema's, its grammar is `parseScopeList`'s (a 400 naming why).
 */
function refusedLater(pointer: string, value: unknown): boolean {
  return /(^|\/)scopes\/\d+$/.test(pointer) && !tryParseScope(value as string).ok;
}

/**
 * zod drops a `__proto__` key (a guard against prototype pollution) where a validator of the
 * document judges it as any key: a client refusing such a body loses nothing.
 */
const holdsProtoKey = (body: unknown) => JSON.stringify(body).includes('"__proto__"');

const at = (body: unknown, pointer: string): unknown =>
  pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((v, k) => (v as Json | undefined)?.[k], body);

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Paths to the values inside a body, three levels deep, an array's first item standing for all. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (prefix.length >= 3) return [];
  let keys: string[] = [];
  if (Array.isArray(value)) keys = value.length > 0 ? ['0'] : [];
  else if (isObject(value)) keys = Object.keys(value);
  return keys.flatMap((k) => {
    const path = [...prefix, k];
    // A `__proto__` key of a parsed body is no path a copy can set.
    return k === '__proto__' ? [] : [path, ...leafPaths((value as Json)[k], path)];
  });
}

/** `body` with the value at `path` replaced by `value`, or left out when it is undefined. */
function withValue(body: unknown, path: string[], value: unknown): unknown {
  // As the daemon gets it: JSON text, parsed (a `__proto__` key stays an own key).
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  let at: Json = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Json;
  const key = path.at(-1)!;
  if (value !== undefined) at[key] = value;
  else if (Array.isArray(at)) at.splice(Number(key), 1);
  else delete at[key];
  return copy;
}

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats.default(ajv);

/** Bodies of `route`: valid-shaped samples, then each with one field replaced by a bad value. */
function bodiesOf(route: RouteDef): unknown[] {
  const r = rng(seedOf(route.id));
  const samples = [0, 1, 2, 3]
    .map((i) => validSample(route.body!, seedOf(route.id) + i))
    .filter((s) => s !== undefined);
  const out: unknown[] = [...samples, {}, [], null, 'text'];
  for (const sample of samples.slice(0, 2)) {
    const leaves = leafPaths(sample);
    for (const path of leaves) {
      for (const [, raw] of r.some(BAD_FIELDS, 6 * SCALE)) {
        const value = JSON.parse(raw);
        // 1e400 parses to Infinity, which no JSON Schema number excludes (a JSON text cannot
        // hold it); the daemon's 422 names it.
        if (typeof value === 'number' && !Number.isFinite(value)) continue;
        out.push(withValue(sample, path, value));
      }
      for (const odd of oddValuesOf(path.at(-1)!)) out.push(withValue(sample, path, odd));
      out.push(withValue(sample, path, undefined));
    }
  }
  return out;
}

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);

describe(`the document's body schemas agree with the daemon's (seed ${SEED})`, () => {
  const withBody = routes.filter((r: RouteDef) => r.body !== undefined) as RouteDef[];

  it.each(withBody.map((r) => [r.id, r] as const))('%s', (_id, route) => {
    const schema =
      paths[route.path]?.[route.method.toLowerCase()]?.requestBody?.content['application/json']
        ?.schema;
    expect(schema).toBeDefined();
    const check = ajv.compile(schema as Json);
    const disagreements: string[] = [];
    for (const body of bodiesOf(route)) {
      const parsed = route.body!.safeParse(body);
      const failure = check(body) ? null : (check.errors?.[0] ?? { instancePath: '?' });
      if (parsed.success && failure !== null) {
        const pointer = failure.instancePath;
        if (refusedLater(pointer, at(body, pointer)) || holdsProtoKey(body)) continue;
        disagreements.push(
          `the document refuses at ${failure.instancePath} what the daemon takes: ${show(body)}`,
        );
      }
      if (!parsed.success && failure === null) {
        const field = parsed.error.issues[0]?.path.join('.') ?? '';
        disagreements.push(
          `the document takes what the daemon refuses at '${field}' (${parsed.error.issues[0]?.message}): ${show(body)}`,
        );
      }
    }
    expect(disagreements).toEqual([]);
  });
});

/**
 * The value a client holding `wire` in a query parameter of `schema` has: an integer or a flag
 * as its own type, when `wire` is how a client writes it (`'1'`, not `'01'`: undefined, skipped);
 * any other text as text, which the schema's type then refuses.
 */
function typedOf(schema: Json, wire: string): unknown {
  if (schema.type === 'integer' && /^-?\d+$/.test(wire)) {
    const n = Number(wire);
    return Number.isSafeInteger(n) && String(n) === wire ? n : undefined;
  }
  if (schema.type === 'boolean' && (wire === 'true' || wire === 'false')) return wire === 'true';
  return wire;
}

/** Query values to try for `name`: the valid one, the fuzz's bad ones, and an integer's bounds. */
function wiresOf(name: string, schema: Json, valid: string | undefined): string[] {
  const decoded = BAD_QUERY_VALUES.flatMap((v) => {
    try {
      return [decodeURIComponent(v)];
    } catch {
      return [];
    }
  });
  const odd = oddValuesOf(name).filter((v): v is string => typeof v === 'string');
  const bounds = [schema.minimum, schema.maximum].flatMap((b) =>
    typeof b === 'number' ? [b - 1, b, b + 1].map(String) : [],
  );
  return [...new Set([...(valid === undefined ? [] : [valid]), ...decoded, ...odd, ...bounds])];
}

describe(`the document's query parameters agree with the daemon's (seed ${SEED})`, () => {
  // Not the attachment link's content route: its parts are a credential, so its schema takes any
  // value and every fault is the service's 404 (uploads.test.ts); the document says the bounds a
  // working link has.
  const withQuery = routes.filter(
    (r: RouteDef) => r.query !== undefined && r.id !== 'attachments.content',
  ) as RouteDef[];

  it.each(withQuery.map((r) => [r.id, r] as const))('%s', (_id, route) => {
    const query = route.query!;
    const base = (validSample(query, seedOf(route.id)) ?? {}) as Record<string, string>;
    expect(query.safeParse(base).success, `a valid query of ${route.id}`).toBe(true);
    const operation = paths[route.path]?.[route.method.toLowerCase()];
    const disagreements: string[] = [];
    for (const param of operation?.parameters.filter((p) => p.in === 'query') ?? []) {
      const check = ajv.compile(param.schema);
      for (const wire of wiresOf(param.name, param.schema, base[param.name])) {
        const typed = typedOf(param.schema, wire);
        if (typed === undefined) continue;
        const parsed = query.safeParse({ ...base, [param.name]: wire });
        // Refused for another parameter's sake (one whose value depends on this one's).
        const field = parsed.success ? undefined : parsed.error.issues[0]?.path[0];
        if (field !== undefined && field !== param.name) continue;
        const documented = check(typed);
        if (parsed.success !== documented) {
          const who = documented ? 'the document takes' : 'the document refuses';
          disagreements.push(`${who} ${param.name}=${show(wire)}, the daemon the other way`);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});
