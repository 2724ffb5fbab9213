/**
 * A quick yes for valid input: @cfworker/json-schema builds a JSON Pointer for every property it
 * visits and a result object for every subschema, about 1 µs for a one-field input, which is a
 * tenth of a whole command. Schemas made only of the usual keywords are compiled here into a plan,
 * plain data that one function walks (still no `new Function`, which workerd forbids), answering
 * whether an input is valid. Only a yes is taken from it: a no sends the input to the validator,
 * which stays the judge and names the failing field. So the walk follows the validator's own code
 * keyword by keyword (and calls its `format`, `ucs2length` and `deepCompareStrict`), and a schema
 * using any keyword the validator reads but this file does not know gets no plan at all.
 * One function over data rather than a closure per keyword: a request finds the check's code cold
 * in the CPU's caches, and one small loop costs fewer misses than a chain of closures.
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

/** The JSON Schema type names (draft 2020-12, §6.1.1). */
export const JSON_TYPES: ReadonlySet<string> = new Set([
  'object',
  'array',
  'string',
  'number',
  'integer',
  'boolean',
  'null',
]);

/** Thrown while compiling a schema the plan does not cover. */
class Unsupported extends Error {}

/**
 * What one subschema requires. A keyword the schema lacks holds the value that lets everything
 * through (`null`, an empty list, a bound of ±Infinity), so the walk tests every field alike.
 */
interface Plan {
  /** `true` or `false` for a boolean schema, which decides alone; `null` for an object schema. */
  readonly verdict: boolean | null;
  readonly types: readonly string[] | null;
  /** `const`, boxed so that a `const` of `null` differs from no `const`. */
  readonly constant: { readonly value: unknown } | null;
  readonly members: readonly unknown[] | null;
  readonly required: readonly string[];
  readonly properties: readonly (readonly [string, Plan])[];
  readonly additional: Plan | null;
  /** The schema's own `properties`, whose keys `additionalProperties` skips. */
  readonly declared: object | null;
  readonly minProperties: number;
  readonly maxProperties: number;
  readonly items: Plan | null;
  readonly minItems: number;
  readonly maxItems: number;
  readonly minimum: number;
  readonly maximum: number;
  readonly exclusiveMinimum: number;
  readonly exclusiveMaximum: number;
  readonly minLength: number;
  readonly maxLength: number;
  readonly patterns: readonly RegExp[];
  readonly formats: readonly ((value: string) => unknown)[];
}

type Draft = { -readonly [K in keyof Plan]: Plan[K] };

/** The quick check of `schema`, or `null` when the validator alone must judge it. */
export function compileAccept(schema: unknown): Accept | null {
  let plan: Plan;
  try {
    plan = compile(schema, new Set());
  } catch (thrown) {
    if (thrown instanceof Unsupported) return null;
    throw thrown;
  }
  return (value) => accepts(plan, value);
}

/** @param ancestors the schemas being compiled above this one: a cycle is left to the validator */
function compile(schema: unknown, ancestors: Set<object>): Plan {
  const plan: Draft = {
    verdict: null,
    types: null,
    constant: null,
    members: null,
    required: [],
    properties: [],
    additional: null,
    declared: null,
    minProperties: 0,
    maxProperties: Infinity,
    items: null,
    minItems: 0,
    maxItems: Infinity,
    minimum: -Infinity,
    maximum: Infinity,
    exclusiveMinimum: -Infinity,
    exclusiveMaximum: Infinity,
    minLength: 0,
    maxLength: Infinity,
    patterns: [],
    formats: [],
  };
  if (typeof schema === 'boolean') {
    plan.verdict = schema;
    return plan;
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new Unsupported();
  if (ancestors.has(schema)) throw new Unsupported();
  ancestors.add(schema);
  const s = schema as Record<string, unknown>;
  for (const keyword of Object.keys(s)) {
    if (UNSUPPORTED.has(keyword)) throw new Unsupported();
    if (SUPPORTED.has(keyword)) addKeyword(plan, keyword, s[keyword], s, ancestors);
  }
  ancestors.delete(schema);
  return plan;
}

function addKeyword(
  plan: Draft,
  keyword: string,
  value: unknown,
  schema: Record<string, unknown>,
  ancestors: Set<object>,
): void {
  switch (keyword) {
    case 'type': {
      const types = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(types) || !types.every((type) => JSON_TYPES.has(type))) {
        throw new Unsupported();
      }
      plan.types = types as string[];
      return;
    }
    case 'const':
      plan.constant = { value };
      return;
    case 'enum':
      if (!Array.isArray(value)) throw new Unsupported();
      plan.members = value;
      return;
    case 'required':
      if (!Array.isArray(value) || !value.every((key) => typeof key === 'string')) {
        throw new Unsupported();
      }
      plan.required = value as string[];
      return;
    case 'properties':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new Unsupported();
      }
      plan.properties = Object.entries(value).map(([key, sub]) => [key, compile(sub, ancestors)]);
      return;
    case 'additionalProperties': {
      plan.additional = compile(value, ancestors);
      const declared = schema.properties;
      // The validator skips only the keys `properties` names (`patternProperties` is unsupported).
      plan.declared = typeof declared === 'object' && declared !== null ? declared : null;
      return;
    }
    case 'items':
      // An array of schemas is the tuple form of older drafts, which this file leaves alone.
      if (Array.isArray(value)) throw new Unsupported();
      plan.items = compile(value, ancestors);
      return;
    case 'minProperties':
    case 'maxProperties':
    case 'minItems':
    case 'maxItems':
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
      // Any other value is left to the validator's own comparison.
      if (typeof value !== 'number') throw new Unsupported();
      plan[keyword] = value;
      return;
    case 'pattern':
      if (typeof value !== 'string') throw new Unsupported();
      try {
        plan.patterns = [new RegExp(value, 'u')]; // as the validator builds it, once instead of per call
      } catch {
        throw new Unsupported();
      }
      return;
    case 'format': {
      if (typeof value !== 'string') throw new Unsupported();
      // An unknown format is not checked (the validator's rule); a known one by its own test.
      // A name the library does not define but `formats[name]` still finds (`valueOf`, inherited
      // from Object) is the validator's to judge: it calls that as a method, this plan could not.
      if (Object.hasOwn(formats, value)) {
        plan.formats = [(formats as Record<string, (value: string) => boolean>)[value]!];
      } else if (value in formats) {
        throw new Unsupported();
      }
      return;
    }
  }
}

/** Whether `v` satisfies every keyword of `plan`, in the validator's terms. */
function accepts(plan: Plan, v: unknown): boolean {
  if (plan.verdict !== null) return plan.verdict;
  if (plan.types !== null && !isAnyType(v, plan.types)) return false;
  if (plan.constant !== null && !sameValue(v, plan.constant.value)) return false;
  if (plan.members !== null && !isMember(v, plan.members)) return false;
  switch (typeof v) {
    case 'string': {
      // A code point is one or two UTF-16 units, so most strings are decided by `length` alone.
      const length = v.length;
      if (
        length < 2 * plan.minLength &&
        (length < plan.minLength || ucs2length(v) < plan.minLength)
      )
        return false;
      if (length > plan.maxLength && ucs2length(v) > plan.maxLength) return false;
      for (const pattern of plan.patterns) if (!pattern.test(v)) return false;
      for (const test of plan.formats) if (!test(v)) return false;
      return true;
    }
    case 'number':
      // The validator's draft 2020-12 comparisons, which no JSON number (never NaN) escapes.
      return (
        v >= plan.minimum &&
        v <= plan.maximum &&
        v > plan.exclusiveMinimum &&
        v < plan.exclusiveMaximum
      );
    case 'boolean':
      return true;
    case 'object':
      if (v === null) return true;
      return Array.isArray(v)
        ? acceptsArray(plan, v)
        : acceptsObject(plan, v as Record<string, unknown>);
    default:
      return false; // not a JSON value: the validator throws on it
  }
}

function acceptsObject(plan: Plan, object: Record<string, unknown>): boolean {
  for (const key of plan.required) if (!Object.hasOwn(object, key)) return false;
  for (const [key, sub] of plan.properties) {
    if (Object.hasOwn(object, key) && !accepts(sub, object[key])) return false;
  }
  if (plan.minProperties > 0 || plan.maxProperties < Infinity) {
    const count = Object.keys(object).length;
    if (count < plan.minProperties || count > plan.maxProperties) return false;
  }
  const { additional, declared } = plan;
  if (additional !== null) {
    for (const key in object) {
      if (!(declared !== null && Object.hasOwn(declared, key)) && !accepts(additional, object[key]))
        return false;
    }
  }
  return true;
}

function acceptsArray(plan: Plan, array: unknown[]): boolean {
  if (array.length < plan.minItems || array.length > plan.maxItems) return false;
  const { items } = plan;
  if (items !== null) for (const item of array) if (!accepts(items, item)) return false;
  return true;
}

// Loops, not `some`: a callback would be a closure allocated on every call.
function isAnyType(v: unknown, types: readonly string[]): boolean {
  for (const type of types) if (isType(v, type)) return true;
  return false;
}

function isMember(v: unknown, members: readonly unknown[]): boolean {
  for (const member of members) if (sameValue(v, member)) return true;
  return false;
}

function sameValue(v: unknown, expected: unknown): boolean {
  return typeof v === 'object' && v !== null ? deepCompareStrict(v, expected) : v === expected;
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
