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
    // A reference to itself fails on any value: found at once. At the root and below it, where
    // no probe of the root alone reaches.
    const nested = (a: object) => ({ type: 'object', properties: { a } });
    for (const bad of [
      { $ref: '#' },
      { allOf: [{ $ref: '#' }] },
      nested({ $ref: '#/properties/a' }),
      { type: 'array', items: { $ref: '#/items' } },
    ]) {
      expect(() => compileSchema(bad, 'output_schema'), JSON.stringify(bad)).toThrow(
        /^output_schema(\.[\w.[\]]+)? is not a usable JSON Schema: /,
      );
    }
    // A keyword of another shape than draft 2020-12's meta-schema gives it: the validator would
    // apply it as nobody meant (or refuse every value), so it is named with what it must be.
    for (const [bad, message] of [
      [{ enum: 5 }, 'output_schema.enum must be a non-empty array'],
      [{ enum: [] }, 'output_schema.enum must be a non-empty array'],
      [{ anyOf: 5 }, 'output_schema.anyOf must be a non-empty array of schemas'],
      [{ oneOf: [] }, 'output_schema.oneOf must be a non-empty array of schemas'],
      [nested({ enum: 5 }), 'output_schema.properties.a.enum must be a non-empty array'],
      [nested({ allOf: {} }), 'output_schema.properties.a.allOf must be a non-empty array'],
      [nested({ required: 5 }), 'output_schema.properties.a.required must be an array of distinct'],
      [{ required: 'id' }, 'output_schema.required must be an array of distinct property names'],
      [{ required: ['a', 'a'] }, 'output_schema.required must be an array of distinct'],
      [{ minLength: -1 }, 'output_schema.minLength must be a whole number, 0 or more'],
      [{ maxItems: 1.5 }, 'output_schema.maxItems must be a whole number, 0 or more'],
      [{ minimum: '3' }, 'output_schema.minimum must be a number'],
      [{ multipleOf: 0 }, 'output_schema.multipleOf must be a number above 0'],
      [{ multipleOf: '5' }, 'output_schema.multipleOf must be a number above 0'],
      [{ $ref: 5 }, 'output_schema.$ref must be a string'],
      [{ uniqueItems: 'yes' }, 'output_schema.uniqueItems must be true or false'],
      [{ format: 5 }, 'output_schema.format must be a string'],
      [{ items: [{}, 5] }, 'output_schema.items must be a schema'],
      [{ not: 'x' }, 'output_schema.not must be a schema'],
      [{ properties: { a: 5 } }, 'output_schema.properties must be an object whose values are'],
      [{ dependentRequired: { a: 'b' } }, 'output_schema.dependentRequired must map property'],
    ] as const) {
      expect(() => compileSchema(bad, 'output_schema'), JSON.stringify(bad)).toThrow(message);
    }
    // Shapes the meta-schema allows stay usable, the pre-2020 tuple form of `items` included.
    for (const good of [
      { items: [{ type: 'string' }, true], additionalItems: false },
      { items: false, required: [], enum: [null], minLength: 0, multipleOf: 0.5 },
      { not: true, properties: { a: false }, dependentRequired: { a: ['b'] } },
    ]) {
      expect(() => compileSchema(good, 'output_schema'), JSON.stringify(good)).not.toThrow();
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
