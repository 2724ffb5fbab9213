/**
 * A quick yes for valid input: @cfworker/json-schema builds a JSON Pointer for every property it
 * visits and a result object for every subschema, about 1 µs for a one-field input, which is a
 * tenth of a whole command. Schemas made only of the usual keywords are compiled here into
 * closures (still no `new Function`, which workerd forbids) that answer whether an input is
 * valid. Only a yes is taken from them: a no sends the input to the validator, which stays the
 * judge and names the failing field. So the closures follow the validator's own code keyword by
 * keyword (and call its `format`, `ucs2length` and `deepCompareStrict`), and a schema using any
 * keyword the validator reads but this file does not know gets no closure at all.
 */
import { deepCompareStrict, format as formats, ucs2length } from '@cfworker/json-schema';

export type Accept = (value: unknown) => boolean;

const SUPPORTED = new Set([
  'type',
  'const',
  'enum',
  'required',
  'properties',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
]);

// The other keywords the validator reads (validate.js of @cfworker/json-schema 4): a schema using
// one is left to it. Every keyword in neither set is an annotation the validator ignores too.
const UNSUPPORTED = new Set([
  '$ref',
  '$recursiveRef',
  '$recursiveAnchor',
  'not',
  'anyOf',
  'allOf',
  'oneOf',
  'if',
  'then',
  'else',
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'multipleOf',
  '__absolute_ref__',
  '__absolute_recursive_ref__',
]);

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/** Thrown while compiling a schema the closures do not cover. */
class Unsupported extends Error {}

/** The quick check of `schema`, or `null` when the validator alone must judge it. */
export function compileAccept(schema: unknown): Accept | null {
  try {
    return compile(schema, new Set());
  } catch (thrown) {
    if (thrown instanceof Unsupported) return null;
    throw thrown;
  }
}

type Checks = {
  any: Accept[];
  object: Accept[];
  array: Accept[];
  number: Accept[];
  string: Accept[];
};

/** @param ancestors the schemas being compiled above this one: a cycle is left to the validator */
function compile(schema: unknown, ancestors: Set<object>): Accept {
  if (schema === true) return () => true;
  if (schema === false) return () => false;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new Unsupported();
  if (ancestors.has(schema)) throw new Unsupported();
  ancestors.add(schema);
  const s = schema as Record<string, unknown>;
  const checks: Checks = { any: [], object: [], array: [], number: [], string: [] };
  for (const keyword of Object.keys(s)) {
    if (UNSUPPORTED.has(keyword)) throw new Unsupported();
    if (SUPPORTED.has(keyword)) addCheck(keyword, s[keyword], s, checks, ancestors);
  }
  ancestors.delete(schema);
  return combine(checks);
}

function addCheck(
  keyword: string,
  value: unknown,
  schema: Record<string, unknown>,
  checks: Checks,
  ancestors: Set<object>,
): void {
  switch (keyword) {
    case 'type': {
      const types = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(types) || !types.every((type) => TYPES.has(type))) {
        throw new Unsupported();
      }
      checks.any.push((v) => types.some((type) => isType(v, type)));
      return;
    }
    case 'const':
      checks.any.push((v) => (isComposite(v) ? deepCompareStrict(v, value) : v === value));
      return;
    case 'enum': {
      if (!Array.isArray(value)) throw new Unsupported();
      const members = value as unknown[];
      checks.any.push((v) =>
        isComposite(v)
          ? members.some((member) => deepCompareStrict(v, member))
          : members.some((member) => v === member),
      );
      return;
    }
    case 'required': {
      if (!Array.isArray(value) || !value.every((key) => typeof key === 'string')) {
        throw new Unsupported();
      }
      const keys = value as string[];
      checks.object.push((v) => keys.every((key) => Object.hasOwn(v as object, key)));
      return;
    }
    case 'properties': {
      const properties = subschemas(value, ancestors);
      checks.object.push((v) => {
        const object = v as Record<string, unknown>;
        for (const [key, accept] of properties) {
          if (Object.hasOwn(object, key) && !accept(object[key])) return false;
        }
        return true;
      });
      return;
    }
    case 'additionalProperties': {
      const accept = compile(value, ancestors);
      const declared = schema.properties;
      // The validator skips only the keys `properties` names (`patternProperties` is unsupported).
      const named =
        typeof declared === 'object' && declared !== null
          ? (key: string) => Object.hasOwn(declared, key)
          : () => false;
      checks.object.push((v) => {
        const object = v as Record<string, unknown>;
        for (const key in object) {
          if (!named(key) && !accept(object[key])) return false;
        }
        return true;
      });
      return;
    }
    case 'minProperties': {
      const min = bound(value);
      checks.object.push((v) => Object.keys(v as object).length >= min);
      return;
    }
    case 'maxProperties': {
      const max = bound(value);
      checks.object.push((v) => Object.keys(v as object).length <= max);
      return;
    }
    case 'items': {
      // An array of schemas is the tuple form of older drafts, which this file leaves alone.
      if (Array.isArray(value)) throw new Unsupported();
      const accept = compile(value, ancestors);
      checks.array.push((v) => (v as unknown[]).every((item) => accept(item)));
      return;
    }
    case 'minItems': {
      const min = bound(value);
      checks.array.push((v) => (v as unknown[]).length >= min);
      return;
    }
    case 'maxItems': {
      const max = bound(value);
      checks.array.push((v) => (v as unknown[]).length <= max);
      return;
    }
    // The validator's draft 2020-12 comparisons, which no JSON number (never NaN) escapes.
    case 'minimum': {
      const min = bound(value);
      checks.number.push((v) => (v as number) >= min);
      return;
    }
    case 'maximum': {
      const max = bound(value);
      checks.number.push((v) => (v as number) <= max);
      return;
    }
    case 'exclusiveMinimum': {
      const min = bound(value);
      checks.number.push((v) => (v as number) > min);
      return;
    }
    case 'exclusiveMaximum': {
      const max = bound(value);
      checks.number.push((v) => (v as number) < max);
      return;
    }
    case 'minLength': {
      const min = bound(value);
      // A code point is one or two UTF-16 units, so most strings are decided by `length` alone.
      checks.string.push((v) => {
        const s = v as string;
        return s.length >= 2 * min || (s.length >= min && ucs2length(s) >= min);
      });
      return;
    }
    case 'maxLength': {
      const max = bound(value);
      checks.string.push((v) => {
        const s = v as string;
        return s.length <= max || ucs2length(s) <= max;
      });
      return;
    }
    case 'pattern': {
      if (typeof value !== 'string') throw new Unsupported();
      let regex: RegExp;
      try {
        regex = new RegExp(value, 'u'); // as the validator builds it, once instead of per call
      } catch {
        throw new Unsupported();
      }
      checks.string.push((v) => regex.test(v as string));
      return;
    }
    case 'format': {
      if (typeof value !== 'string') throw new Unsupported();
      // An unknown format is not checked (the validator's rule); a known one by its own test.
      const test = (formats as Record<string, ((value: string) => boolean) | undefined>)[value];
      if (test) checks.string.push((v) => Boolean(test(v as string)));
      return;
    }
  }
}

/** A numeric keyword's value; any other value is left to the validator's own comparison. */
function bound(value: unknown): number {
  if (typeof value !== 'number') throw new Unsupported();
  return value;
}

function subschemas(value: unknown, ancestors: Set<object>): [string, Accept][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Unsupported();
  return Object.entries(value).map(([key, schema]) => [key, compile(schema, ancestors)]);
}

/** One function running each check that applies to the value's JSON type. */
function combine(checks: Checks): Accept {
  const { any, object, array, number, string } = checks;
  const all = (list: Accept[], v: unknown) => {
    for (const check of list) if (!check(v)) return false;
    return true;
  };
  return (v) => {
    if (!all(any, v)) return false;
    switch (typeof v) {
      case 'string':
        return all(string, v);
      case 'number':
        return all(number, v);
      case 'boolean':
        return true;
      case 'object':
        if (v === null) return true;
        return Array.isArray(v) ? all(array, v) : all(object, v);
      default:
        return false; // not a JSON value: the validator throws on it
    }
  };
}

function isComposite(v: unknown): boolean {
  return typeof v === 'object' && v !== null;
}

/** The validator's type test, `integer` included (a number with no fractional part). */
function isType(v: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return typeof v === 'number' && v % 1 === 0 && !Number.isNaN(v);
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return typeof v === type;
  }
}
