import { describe, expect, it } from 'vitest';
import { compileSchema, schemaPatterns } from '../src/json-schema.ts';

const schema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    address: { type: 'object', properties: { city: { type: 'string' } } },
  },
  required: ['title'],
};

describe('compileSchema (@svc/plugin-kit/json-schema)', () => {
  it('answers null for a value that matches', () => {
    expect(compileSchema(schema, 'input')({ title: 'x' })).toBeNull();
  });

  it('names the deepest failure as a pointer, a field and the reason', () => {
    const check = compileSchema(schema, 'input');
    expect(check({ title: 'x', address: { city: 3 } })).toEqual({
      pointer: '/address/city',
      field: 'address.city',
      reason: 'Instance type "number" is invalid. Expected "string".',
    });
    expect(check({})?.pointer).toBe('/title');
    expect(check({})?.field).toBe('title');
    expect(check('text')?.pointer).toBe('');
    expect(check('text')?.field).toBe('');
  });

  it('throws a TypeError naming the caller and the place for a schema that cannot run', () => {
    expect(() => compileSchema({ properties: { a: { $ref: '#/x' } } }, 'output_schema')).toThrow(
      /^output_schema\.properties\.a\.\$ref "#\/x" resolves to nothing$/,
    );
    expect(() => compileSchema({ maximum: Number.POSITIVE_INFINITY }, 'output_schema')).toThrow(
      /output_schema\.maximum must be a finite number/,
    );
    // Keywords of the wrong shape, and a reference to itself, fail on any value: found at once.
    // At the root and below it, where no probe of the root alone reaches.
    const nested = (a: object) => ({ type: 'object', properties: { a } });
    for (const bad of [
      { $ref: '#' },
      { allOf: [{ $ref: '#' }] },
      { enum: 5 },
      { anyOf: 5 },
      nested({ enum: 5 }),
      nested({ allOf: {} }),
      nested({ type: 'object', required: 5 }),
      nested({ $ref: '#/properties/a' }),
      { type: 'array', items: { $ref: '#/items' } },
    ]) {
      expect(() => compileSchema(bad, 'output_schema'), JSON.stringify(bad)).toThrow(
        /^output_schema(\.[\w.[\]]+)? is not a usable JSON Schema: /,
      );
    }
    // A pattern that nests unbounded repetition could stall the server on one short string.
    expect(() =>
      compileSchema({ properties: { a: { pattern: '^(a+)+$' } } }, 'output_schema'),
    ).toThrow(/^output_schema\.properties\.a: "\^\(a\+\)\+\$" repeats \(a\+\)\+, /);
    expect(() => compileSchema({ patternProperties: { '^(\\w*\\s?)*$': {} } }, 'input')).toThrow(
      /^input: .* repeats .*exponential time/,
    );
    expect(compileSchema({ pattern: '^(foo|bar)+-[a-z0-9]{1,8}$' }, 'input')('foo-a1')).toBeNull();
    // A recursive schema that does describe something is kept.
    const tree = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } } },
    };
    expect(compileSchema(tree, 'input')({ children: [{ children: [] }] })).toBeNull();
  });

  it("compiles a copy: a frozen schema works, and the caller's objects stay unmarked", () => {
    const ref = Object.freeze({ $ref: '#/$defs/name' });
    const frozen = Object.freeze({
      $defs: Object.freeze({ name: Object.freeze({ type: 'string' }) }),
      properties: Object.freeze({ name: ref }),
    });
    const check = compileSchema(frozen, 'input');
    expect(check({ name: 1 })?.field).toBe('name');
    expect(Object.getOwnPropertyNames(ref)).toEqual(['$ref']);
  });
});

describe('schemaPatterns', () => {
  it('lists each pattern where the validator applies one', () => {
    const found = schemaPatterns(
      {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[A-Z]+$', maxLength: 8 } },
        patternProperties: { '^x-': { type: 'string', pattern: 'b+' } },
        anyOf: [{ items: { pattern: 5 } }],
        // not a subschema keyword: the validator never applies what is under it
        examples: [{ pattern: 'never' }],
      },
      'input',
    );
    expect(found).toEqual([
      { pattern: '^x-', where: 'input' },
      { pattern: '^[A-Z]+$', where: 'input.properties.code' },
      { pattern: 'b+', where: 'input.patternProperties.^x-' },
      // as the validator reads a pattern that is not a string: `new RegExp(5)`
      { pattern: '5', where: 'input.anyOf[0].items' },
    ]);
  });
});
