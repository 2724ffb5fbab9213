import { type Schema, Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { compileAccept } from '../src/schema-accept.ts';

// The quick check must say "valid" exactly when the validator does, for every schema it compiles:
// a wrong yes would let invalid input through, a wrong no would only cost time, but both are bugs.
const schemas: Record<string, unknown> = {
  'boolean true': true,
  'boolean false': false,
  empty: {},
  'type object': { type: 'object' },
  'type list': { type: ['string', 'null'] },
  'type integer': { type: 'integer' },
  'type list with integer': { type: ['integer', 'boolean'] },
  'type number': { type: 'number' },
  'type array': { type: 'array' },
  'type null': { type: 'null' },
  'type empty list': { type: [] },
  const: { const: 'T-1' },
  'const object': { const: { a: [1, { b: null }] } },
  enum: { enum: ['open', 'closed', 1, null, true] },
  'enum of composites': { enum: [[1, 2], { a: 1 }, 'x'] },
  required: { required: ['title', 'a'] },
  properties: {
    type: 'object',
    properties: { title: { type: 'string', minLength: 1 }, n: { type: 'integer', minimum: 0 } },
    required: ['title'],
  },
  'additionalProperties false': {
    type: 'object',
    properties: { title: { type: 'string' }, a: true },
    additionalProperties: false,
  },
  'additionalProperties schema': { additionalProperties: { type: 'number', maximum: 10 } },
  'additionalProperties without properties': { additionalProperties: false },
  'properties named __proto__': {
    properties: { ['__proto__']: { type: 'string' } },
    additionalProperties: false,
  },
  'min/maxProperties': { minProperties: 1, maxProperties: 2 },
  items: { type: 'array', items: { type: 'string', maxLength: 1 }, minItems: 1, maxItems: 3 },
  'items false': { items: false },
  numbers: { minimum: -3, maximum: 1e21, exclusiveMinimum: -3.5, exclusiveMaximum: 2 ** 53 },
  'exclusive only': { exclusiveMinimum: 0, exclusiveMaximum: 1.5 },
  'code points': { minLength: 2, maxLength: 2 },
  'minLength of one': { minLength: 1 },
  pattern: { pattern: '^[A-Z]-\\d+$' },
  'pattern with unicode': { pattern: '^\\p{L}+$' },
  'format email': { format: 'email' },
  'format date-time': { format: 'date-time' },
  'format unknown': { format: 'no-such-format' },
  annotations: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.test/ticket',
    title: 'Ticket',
    description: 'A ticket',
    default: {},
    examples: [{ title: 'x' }],
    $comment: 'annotations only',
    deprecated: false,
    readOnly: false,
    $defs: { unused: { type: 'string' } },
    type: 'object',
  },
  nested: {
    type: 'object',
    properties: {
      nested: {
        type: 'object',
        properties: { deep: { type: 'string', format: 'email' } },
        required: ['deep'],
        additionalProperties: { type: 'array', items: { enum: [1, 2] } },
      },
      tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 2 },
    },
    required: ['nested'],
  },
};

const fixed: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  1.5,
  -3,
  -3.5,
  2,
  10,
  1e21,
  2 ** 53,
  '',
  'a',
  'ab',
  'abc',
  '😀',
  'a😀',
  '😀😀',
  '\uD800',
  '\uD800a',
  'T-1',
  'Ünïcode',
  'x@y.test',
  'not an email',
  '2026-11-22T10:00:00Z',
  '2026-13-40T99:00:00Z',
  'open',
  [],
  [1],
  [1, 2],
  [1, 2, 3, 4],
  ['a'],
  ['a', 'bc'],
  ['😀'],
  [null],
  [[1]],
  {},
  { title: 'x' },
  { title: '' },
  { title: 1 },
  { title: 'x', a: 1 },
  { title: 'x', extra: 1 },
  { a: 1 },
  { a: 1, b: 2, c: 3 },
  { a: [1, { b: null }] },
  { n: -1, title: 'y' },
  { n: 2.5, title: 'y' },
  { nested: { deep: 'x@y.test' } },
  { nested: { deep: 'nope' } },
  { nested: { deep: 'x@y.test', more: [1, 2] } },
  { nested: { deep: 'x@y.test', more: [3] } },
  { nested: { deep: 'x@y.test' }, tags: ['ab', 'cd'] },
  { nested: { deep: 'x@y.test' }, tags: ['ab', 'cd', 'ef'] },
  { nested: { deep: 'x@y.test' }, tags: ['Ab'] },
  JSON.parse('{"__proto__": "own"}'),
  JSON.parse('{"__proto__": 1}'),
];

/** Deterministic random JSON values built from keys and leaves the schemas care about. */
function randomValues(count: number, seed: number): unknown[] {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const keys = ['title', 'a', 'b', 'n', 'tags', 'nested', 'deep', '__proto__', 'more'];
  const leaves = fixed.filter((value) => typeof value !== 'object' || value === null);
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth >= 3 || roll < 0.5) return pick(leaves);
    if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) {
      Object.defineProperty(object, pick(keys), {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  };
  return Array.from({ length: count }, () => value(0));
}

const instances = [...fixed, ...randomValues(400, 20261122)];

describe('compileAccept', () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`agrees with the validator on every instance: ${name}`, () => {
      const accept = compileAccept(schema);
      expect(accept === null).toBe(false);
      const validator = new Validator(schema as Schema, '2020-12', false);
      const disagreements = instances
        .filter((instance) => accept?.(instance) !== validator.validate(instance).valid)
        .map((instance) => JSON.stringify(instance));
      expect(disagreements).toEqual([]);
    });
  }

  it('leaves a schema with any keyword it does not cover to the validator', () => {
    for (const schema of [
      { $ref: '#/$defs/a', $defs: { a: {} } },
      { anyOf: [{ type: 'string' }] },
      { properties: { a: { oneOf: [{}] } } },
      { items: { not: {} } },
      { additionalProperties: { if: {} } },
      { items: [{ type: 'string' }] },
      { patternProperties: { '^a': {} } },
      { multipleOf: 2 },
      { uniqueItems: true },
      { minimum: '1' },
      { type: 'int' },
      { required: 'title' },
      { pattern: '(' },
      { format: 'hasOwnProperty' },
      { format: 'valueOf' },
      { enum: 'open' },
      { properties: [] },
    ]) {
      expect(compileAccept(schema)).toBe(null);
    }
  });

  it('leaves a schema that contains itself to the validator', () => {
    const schema: Record<string, unknown> = { type: 'object' };
    schema.properties = { self: schema };
    expect(compileAccept(schema)).toBe(null);
  });

  it('compiles a subschema used twice without mistaking it for a cycle', () => {
    const name = { type: 'string', minLength: 1 };
    const accept = compileAccept({ properties: { first: name, last: name } });
    expect(accept?.({ first: 'a', last: 'b' })).toBe(true);
    expect(accept?.({ first: 'a', last: '' })).toBe(false);
  });
});
