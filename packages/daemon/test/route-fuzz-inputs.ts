/**
 * Seeded inputs for the route fuzz (route-fuzz.test.ts): a small PRNG, a valid-shaped value of a
 * zod schema (through its JSON Schema, which zod emits itself, and fast-check), and the bad
 * bodies, fields, query values and path parameters every route is sent. Nothing here is random
 * but for the seed: a failure reproduces with the same `SVC_FUZZ_SEED`.
 */
import fc from 'fast-check';
import { z } from 'zod';

/** The fuzz's seed; another one explores other inputs (`SVC_FUZZ_SEED=7 npx vitest run …`). */
export const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20_260_611);

/** More cases per route, for exploring by hand (`SVC_FUZZ_SCALE=10`); CI runs 1. */
export const SCALE = Number(process.env.SVC_FUZZ_SCALE ?? 1);

export interface Rng {
  /** In [0, 1). */
  next(): number;
  pick<T>(items: readonly T[]): T;
  /** `k` distinct items in their original order (all of them when there are fewer). */
  some<T>(items: readonly T[], k: number): T[];
}

/** mulberry32, seeded per route (`seedOf`) so a route added later shifts no other's inputs. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    some(items, k) {
      if (items.length <= k) return [...items];
      const chosen = new Set<number>();
      while (chosen.size < k) chosen.add(Math.floor(next() * items.length));
      return [...chosen].sort((x, y) => x - y).map((i) => items[i]!);
    },
  };
}

/** The seed of one route's inputs: the fuzz's seed mixed with the route id (FNV-1a). */
export function seedOf(id: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// ── valid-shaped values ─────────────────────────────────────────────────────────────────────

type JsonSchema = { [key: string]: unknown };

/** A URL that refuses at once: a valid-shaped plugin endpoint or webhook must reach nothing. */
export const DEAD_URL = 'http://127.0.0.1:9/fuzz';

/** Any small JSON value. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * A fast-check arbitrary of values matching `schema`, for the JSON Schema keywords zod emits
 * (type, enum, const, anyOf/oneOf, properties/required, additionalProperties, propertyNames,
 * items, lengths, bounds, pattern, format). What it cannot honour (a refinement) the caller's
 * zod check filters out.
 */
function arbitraryOf(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema !== 'object' || schema === null || depth > 6) return anyJson;
  const s = schema as JsonSchema;
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union) && union.length > 0) {
    return fc.oneof(...union.map((u) => arbitraryOf(u, depth + 1)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return arbitraryOf(s.allOf[0], depth + 1);
  if (Array.isArray(s.type)) {
    return fc.oneof(...(s.type as string[]).map((type) => arbitraryOf({ ...s, type }, depth)));
  }
  switch (s.type) {
    case 'string':
      return stringOf(s);
    case 'integer': {
      const min = num(s.minimum) ?? (num(s.exclusiveMinimum) ?? -1_000_001) + 1;
      const max = num(s.maximum) ?? (num(s.exclusiveMaximum) ?? 1_000_001) - 1;
      return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
    }
    case 'number':
      return fc.double({
        min: num(s.minimum) ?? num(s.exclusiveMinimum) ?? -1e6,
        max: num(s.maximum) ?? num(s.exclusiveMaximum) ?? 1e6,
        minExcluded: s.exclusiveMinimum !== undefined,
        maxExcluded: s.exclusiveMaximum !== undefined,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = num(s.minItems) ?? 0;
      const maxLength = Math.min(num(s.maxItems) ?? minLength + 3, minLength + 3);
      const item = s.items === undefined ? anyJson : arbitraryOf(s.items, depth + 1);
      return fc.array(item, { minLength, maxLength });
    }
    case 'object':
      return objectOf(s, depth);
    default:
      return anyJson;
  }
}

function stringOf(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = num(s.maxLength) ?? 10_000;
  const fits = (v: string) => v.length >= minLength && v.length <= maxLength;
  if (s.format === 'date-time') {
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (s.format === 'uri') return fc.constant(DEAD_URL);
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
    } catch {
      // A pattern fast-check cannot generate from: the caller's zod check sorts it out.
    }
  }
  // Any Unicode text, short: the bad-input cases send the long and the broken.
  return fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, minLength + 12) });
}

function objectOf(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(properties);
  if (names.length === 0) {
    const value = typeof s.additionalProperties === 'object' ? s.additionalProperties : {};
    if (s.additionalProperties === false) return fc.constant({});
    const key = s.propertyNames === undefined ? fc.string() : stringOf(s.propertyNames as never);
    return fc.dictionary(key, arbitraryOf(value, depth + 1), { maxKeys: 3 });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = arbitraryOf(properties[name], depth + 1);
  const requiredKeys = ((s.required ?? []) as string[]).filter((k) => k in record);
  return fc.record(record, { requiredKeys });
}

/**
 * A value `schema` accepts, as it goes on the wire (zod's input side), after `pin` set what must
 * stay safe (a working directory, a short wait); undefined when no candidate passed the schema
 * (a refinement the generator does not know), which the caller then skips.
 */
export function validSample(
  schema: z.ZodType,
  seed: number,
  pin: (value: unknown) => unknown = (v) => v,
): unknown {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const candidates = fc.sample(arbitraryOf(json), { seed, numRuns: 40 });
  for (const candidate of candidates) {
    const pinned = pin(candidate);
    if (schema.safeParse(pinned).success) return pinned;
  }
  return undefined;
}

// ── bad values ──────────────────────────────────────────────────────────────────────────────

/** Raw JSON fragments put in the place of one field (raw, so a lone surrogate can be sent). */
export const BAD_FIELDS: readonly (readonly [label: string, raw: string])[] = [
  ['null', 'null'],
  ['a number', '12345'],
  ['a numeric string', '"12"'],
  ['true', 'true'],
  ['an array', '[1,"a",null]'],
  ['an object', '{"x":{"y":1}}'],
  ['empty string', '""'],
  ['a 300k string', JSON.stringify('x'.repeat(300_000))],
  ['1e308', '1e308'],
  ['1e400 (Infinity once parsed)', '1e400'],
  ['-1e308', '-1e308'],
  ['2^53+1', '9007199254740993'],
  ['-1', '-1'],
  ['-0', '-0'],
  ['0.5', '0.5'],
  ['a lone surrogate', '"a\\ud800b"'],
  ['a NUL', '"a\\u0000b"'],
  ['arrays 500 deep', '['.repeat(500) + ']'.repeat(500)],
  ['objects 2000 deep', '{"a":'.repeat(2000) + '1' + '}'.repeat(2000)],
  ['unicode', JSON.stringify('\u202e𝔘ñí\u0301\ufeff中文🙂')],
  ['a dot path', '"../../../etc/passwd"'],
  ['5000 items', `[${Array(5000).fill('1').join(',')}]`],
  ['__proto__', '{"__proto__":{"polluted":true}}'],
  ['control characters', '"\\u0007\\u001b[31m\\r\\n"'],
];

/** Whole bodies that are no body the route takes: [label, bytes, Content-Type]. */
export const BAD_BODIES: readonly (readonly [string, string | Uint8Array, string])[] = [
  ['not JSON', '{"oops', 'application/json'],
  ['a form', 'a=1&b=2', 'application/x-www-form-urlencoded'],
  ['not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'application/json'],
  ['an array', '[]', 'application/json'],
  ['a number', '42', 'application/json'],
  ['null', 'null', 'application/json'],
  ['a string', '"text"', 'application/json'],
  ['true', 'true', 'application/json'],
  ['nested 3000 deep', '{"a":'.repeat(3000) + '1' + '}'.repeat(3000), 'application/json'],
  ['a lone surrogate key', '{"\\udc00":1}', 'application/json'],
  [
    'multipart',
    '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
    'multipart/form-data; boundary=x',
  ],
];

/** Query values for one key: wrong types, out of range, broken escapes, junk cursors. */
export const BAD_QUERY_VALUES: readonly string[] = [
  '',
  'abc',
  '-1',
  'NaN',
  'Infinity',
  '1e3',
  '0x10',
  '1.5',
  '9'.repeat(40),
  '%201',
  'x'.repeat(5000),
  '%FF',
  '%00',
  '%E2%80%AE%F0%9F%99%82',
  'true,false,,',
  'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'eyJzZXEiOi0xfQ',
  '..%2F..%2Fetc',
  '%',
];

/** Query strings whose shape, not one value, is wrong. */
export const BAD_QUERY_SHAPES: readonly string[] = [
  'limit',
  '&&&=&',
  'a[b]=1&a[c]=2',
  '__proto__=1&constructor=2',
  'limit=1&limit=-1&after=%FF&kinds=,,',
];

/** Path parameter values that name nothing or no well-formed id (already percent-encoded). */
export const BAD_PARAMS: readonly string[] = [
  '',
  'x'.repeat(3000),
  '..',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%2F..%2F..%2Fetc',
  '%C3%BC%F0%9F%99%82',
  '%00',
  '%FF',
  '%25',
  '~',
  '%20',
  '%09',
  'NOPE',
];

/** JSON Schemas that do not compile, refer nowhere, or backtrack. */
const ODD_SCHEMAS: readonly unknown[] = [
  { $ref: '#/definitions/x' },
  { type: 'nope' },
  { pattern: '[' },
  { pattern: '(a+)+$' },
  { $ref: 'https://example.com/s.json' },
  { required: 'x' },
  { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
  { items: [{}, 5] },
  { multipleOf: 0 },
];

/**
 * Values that are valid JSON of the right type but mean something odd, by the name of the field
 * they go in: what a type check lets through to the handler (a schema that does not compile, a
 * scope outside the vocabulary, a schedule that never fires, a special file, a regex or a
 * full-text query that does not parse). Commands are harmless: bash runs them in scratch.
 */
const ODD_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  output_schema: ODD_SCHEMAS,
  response_schema: ODD_SCHEMAS,
  schema: ODD_SCHEMAS,
  scopes: [
    ['svc:files:read:user:relative'],
    ['svc:act'],
    ['svc:files:rw:user:/a/../b'],
    ['ask'],
    ['svc:llm', 'svc:llm'],
    ['x:y'],
    ['svc:memory:read:app::profile:p'],
  ],
  // None fires: a schedule that did would write events into later cases' windows.
  schedule: ['0 0 31 2 *', '* * * * * * * *', '*/0 * * * *', '@reboot', '60 * * * *'],
  timezone: ['Mars/Phobos', 'Etc/GMT+14', '../../etc/passwd'],
  path: ['a/../b', '/etc/passwd', '/dev/zero', '/proc/self/mem', 'a//b', '/', '.'],
  cwd: ['/nonexistent', '/dev/null', '/proc/self'],
  pattern: ['(', '(a+)+$', '\\p{Foo}', 'a{99999}', '[\\d-z]'],
  q: ['"', 'NEAR(a b)', 'a OR', '*', '{a b}:c', "'"],
  since: ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z'],
  media_type: ['text/html', ';;', 'a/b; charset=utf-7', 'image/svg+xml'],
  filename: ['../../x', '.htaccess', 'CON', 'a\\b', '\u202etxt.exe', '/abs'],
  content_base64: ['!!!', 'YQ', '====', 'YQ==YQ=='],
  command: ['exit 3', 'kill -9 $$', 'printf "\\000\\377"', 'yes | head -c 3000000'],
  env: [{ PATH: '' }, { LD_PRELOAD: '/nonexistent.so' }, { BASH_ENV: '/dev/null' }],
  space: ['user', 'app:', 'node:nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'app:x:profile:', 'nope'],
  kinds: ['node.state,,', 'x'.repeat(300), '*'],
  state: ['queued,queued', 'nope', ','],
};

/** The odd values of a field (an own key only: a body's key may be `constructor`). */
export const oddValuesOf = (key: string): readonly unknown[] =>
  Object.hasOwn(ODD_VALUES, key) ? ODD_VALUES[key]! : [];
