/**
 * The patterns of every JSON Schema a token hands the daemon are proven free of super-linear
 * backtracking before the schema is taken (schema-check/pattern-safety.ts): what the kit's nesting
 * check misses (`^(a|a)*b`, `\s+$`) is refused with a 400 naming the field, and a polynomial
 * pattern is refused: a `maxLength` beside it does not stop the validator matching it.
 */
import { compileSchema } from '@svc/plugin-kit/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { besideDaemon } from './beside-daemon.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

// Exponential in V8 (two ways to take each `a`), and not a repetition inside a repetition.
const EXPONENTIAL = '^(a|a)*b';
// Quadratic: unanchored, each start position runs to the end of a long run of spaces.
const QUADRATIC = '\\s+$';

const register = (events: Record<string, unknown>) =>
  t.call('/v1/custom-objects', json({ name: 'patterns', events, receiver: { kind: 'queue' } }));

const objectCount = async () =>
  ((await (await t.call('/v1/custom-objects?limit=200')).json()) as { data: unknown[] }).data
    .length;

describe("a custom object's event schemas", () => {
  it('the kit compiles these patterns: the daemon is what refuses them', () => {
    for (const pattern of [EXPONENTIAL, QUADRATIC]) {
      expect(() => compileSchema({ pattern }, 'schema')).not.toThrow();
    }
  });

  it('refuses an exponential or unbounded polynomial pattern with 400, and registers nothing', async () => {
    const before = await objectCount();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'string', pattern: EXPONENTIAL }, /exponential time/],
      [{ type: 'string', pattern: QUADRATIC }, /degree 2/],
      [{ type: 'object', patternProperties: { [QUADRATIC]: {} } }, /degree 2/],
      [{ properties: { deep: { items: { pattern: EXPONENTIAL } } } }, /exponential time/],
      [{ type: 'string', pattern: '\\d+\\d+\\d+x' }, /of degree [3-9]/],
    ];
    for (const [schema, why] of cases) {
      const res = await register({ ev: { schema } });
      expect(res.status, JSON.stringify(schema)).toBe(400);
      const error = await envelope(res);
      expect(error).toMatchObject({ code: 'invalid_request', field: 'events.ev.schema' });
      expect(error.message).toMatch(why);
      expect(error.message).toContain('events.ev.schema');
    }
    expect(await objectCount()).toBe(before);
  });

  it('takes linear patterns; a polynomial one even under a maxLength, which the validator does not wait for', async () => {
    for (const schema of [
      { type: 'string', pattern: '^[a-z0-9-]+$' },
      { type: 'string', pattern: '^[\\w.+-]+@[\\w-]+\\.[\\w.-]+$' },
    ]) {
      const res = await register({ ev: { schema } });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    // The validator matches `pattern` whether or not `maxLength` failed: no bound saves it.
    const bounded = await register({
      ev: { schema: { type: 'string', pattern: QUADRATIC, maxLength: 64 } },
    });
    expect(bounded.status).toBe(400);
  });

  it('refuses a schema with more distinct patterns than it judges', async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 65 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^x${i}$` }]),
    );
    const res = await register({ ev: { schema: { type: 'object', properties } } });
    expect(res.status).toBe(400);
    expect((await envelope(res)).message).toMatch(/65 distinct patterns; at most 64/);
  });

  it('a schema stored before the screen answers 409 at publish, without matching it', async () => {
    const res = await register({ ev: { schema: { type: 'string' } } });
    const obj = (await res.json()) as { id: string };
    const raw = besideDaemon(t.home);
    raw
      .prepare('UPDATE custom_objects SET events = ? WHERE id = ?')
      .run(JSON.stringify({ ev: { description: null, schema: { pattern: EXPONENTIAL } } }), obj.id);
    raw.close();
    // 40 characters: matched, this would hold the daemon for hours.
    const published = await t.call(
      `/v1/custom-objects/${obj.id}/publish`,
      json({ event: 'ev', data: 'a'.repeat(40) }),
    );
    expect(published.status).toBe(409);
    const error = await envelope(published);
    expect(error).toMatchObject({ code: 'invalid_state', field: 'event' });
    expect(error.message).toMatch(/register the object again/);
  });
});

describe('every other route that takes a schema', () => {
  const evil = { type: 'string', pattern: EXPONENTIAL };
  const routes: [string, string, Record<string, unknown>, string][] = [
    ['nodes.create', '/v1/nodes', { task: 'x', output_schema: evil }, 'output_schema'],
    [
      'nodes.createAndWait',
      '/v1/nodes/create-and-wait',
      { task: 'x', output_schema: evil },
      'output_schema',
    ],
    ['nodes.parse', '/v1/nodes/parse', { task: 'x', output_schema: evil }, 'output_schema'],
    ['runs.start', '/v1/runs', { task: 'x', output_schema: evil }, 'output_schema'],
    ['runs.parse', '/v1/runs/parse', { task: 'x', output_schema: evil }, 'output_schema'],
    [
      'crons.create',
      '/v1/crons',
      { schedule: '0 0 1 1 *', task: { task: 'x', output_schema: evil } },
      'output_schema',
    ],
    [
      'human.requests.create',
      '/v1/human/requests',
      { title: 'Name?', response_schema: evil },
      'response_schema',
    ],
    [
      'llm',
      '/v1/llm',
      { messages: [{ role: 'user', content: 'x' }], output_schema: evil },
      'output_schema',
    ],
  ];

  it.each(routes)('%s refuses it with 400 naming the field', async (_, path, body, field) => {
    const res = await t.call(path, json(body));
    expect(res.status).toBe(400);
    const error = await envelope(res);
    expect(error).toMatchObject({ code: 'invalid_request', field });
    expect(error.message).toMatch(/exponential time/);
  });

  it('human.requests.replace refuses it too, and the request keeps its schema', async () => {
    const created = await t.call('/v1/human/requests', json({ title: 'Name?' }));
    const { id } = (await created.json()) as { id: string };
    const res = await t.call(
      `/v1/human/requests/${id}`,
      json({ title: 'Name?', response_schema: evil }, 'PUT'),
    );
    expect(res.status).toBe(400);
    expect(await envelope(res)).toMatchObject({ field: 'response_schema' });
    const kept = (await (await t.call(`/v1/human/requests/${id}`)).json()) as {
      response_schema: unknown;
    };
    expect(kept.response_schema).toBeNull();
  });
});
