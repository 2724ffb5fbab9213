/**
 * `@svc/plugin-kit/json-schema`: JSON Schema (draft 2020-12) as the kit applies it to command
 * input, for anything else that must judge by the same rules (the daemon checks a node's result
 * with it). @cfworker/json-schema interprets schemas instead of generating code, so this runs
 * where `new Function` is forbidden (workerd). A schema that could only fail when applied is
 * refused when compiled; a failure names its deepest cause, as a JSON Pointer and a field name.
 */
import {
  dereference,
  type OutputUnit,
  type Schema,
  schemaArrayKeyword,
  schemaKeyword,
  schemaMapKeyword,
  validate,
} from '@cfworker/json-schema';
import { isObject } from './is-object.ts';
import { jsonCopy } from './json-copy.ts';
import { nestedRepetition } from './regex-safety.ts';
import { JSON_TYPES } from './schema-accept.ts';
import type { JsonSchema } from './types.ts';

export { nestedRepetition } from './regex-safety.ts';

/** Why a value failed its schema. */
export interface SchemaFailure {
  /** The failing location, a JSON Pointer (RFC 6901): `/title`, `/labels/1`; `''` for the root. */
  pointer: string;
  /** The pointer's property names joined with `.` (`address.city`); `''` for the root. */
  field: string;
  /** The validator's words, e.g. `String is too short (0 < 1).` */
  reason: string;
}

/** `null` when the value matches its schema, else its failure. */
export type SchemaCheck = (value: unknown) => SchemaFailure | null;

/**
 * Compiles `schema` once. Throws a `TypeError` naming `at` (and the path inside) for a schema the
 * validator could only fail on when applied: one that is not plain JSON data, a `$ref` resolving
 * to nothing, a pattern that is no regular expression or that nests unbounded repetition (it
 * could stall the server matching one short string), an unknown `type`. The schema is copied:
 * the validator marks the objects it is given, which the caller's own should not carry.
 * @param at how the caller names the schema in its errors, e.g. `output_schema`
 */
export function compileSchema(schema: JsonSchema, at: string): SchemaCheck {
  const copy = jsonCopy(schema, at);
  // What `new Validator(schema, '2020-12', false)` does, with its table of subschemas in reach.
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(copy as Schema);
  } catch (cause) {
    // The validator's own words say what: `Duplicate schema URI "https://acme.test/s".`
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    throw new TypeError(`${at} is not a usable JSON Schema${why}`, { cause });
  }
  checkUsable(copy, lookup, at);
  return (value) => {
    let result: ReturnType<typeof validate>;
    try {
      result = validate(value, copy as Schema, '2020-12', lookup, false);
    } catch (error) {
      // The validator recurses once per level of the value under a schema that refers to itself
      // (`items: {$ref: '#'}`), and runs out of stack on an input nested some hundreds deep: the
      // value is refused, as one too deep to check, rather than failing the call with a 500.
      if (error instanceof RangeError) return TOO_DEEP;
      throw error;
    }
    if (result.valid) return null;
    const unit = deepest(result.errors);
    const pointer = location(unit);
    return { pointer, field: fieldName(pointer), reason: reasonOf(unit) };
  };
}

const TOO_DEEP: SchemaFailure = {
  pointer: '',
  field: '',
  reason: 'The value nests too deeply to be checked against its schema.',
};

/**
 * The validator's words for a failure, mended where they mislead: a `false` subschema (e.g.
 * `additionalProperties: false`) says only "False boolean schema.", and @cfworker/json-schema
 * 4.1.6 words `maxProperties` as `minProperties` ("does not have at least 2 properties").
 */
function reasonOf(unit: OutputUnit): string {
  if (unit.keyword === 'false') return 'This property is not allowed.';
  if (unit.keyword === 'maxProperties') {
    const limit = /at least (\d+) properties/.exec(unit.error)?.[1];
    if (limit !== undefined) {
      return `Instance has more than ${limit} ${limit === '1' ? 'property' : 'properties'}.`;
    }
  }
  return unit.error;
}

// `dependencies` (draft 7) maps a property to a list of names or to a schema: the validator still
// applies the schemas, though its table of subschema keywords does not name it.
const SUBSCHEMA_MAP = { ...schemaMapKeyword, dependencies: true };
const PROBES = [null, {}, []];

/**
 * What the validator would only find out on a request, found when the handler is made: a `$ref`
 * that resolves to nothing and a pattern that is no regular expression fail every call that
 * reaches them with a 500, and an unknown `type` refuses every input with a 422. The walk follows
 * the validator's own tables of the keywords that hold subschemas, so it looks where it looks.
 * @param lookup the validator's subschemas by absolute URI, where it resolves each `$ref`
 */
function checkUsable(schema: unknown, lookup: Record<string, Schema | boolean>, at: string): void {
  const subschemas: [Schema, string][] = [];
  eachSubschema(schema, at, (node, where) => {
    subschemas.push([node, where]);
    // First: a `$ref` that is no string would read below as one that resolves to nothing.
    const misshapen = misshapenKeyword(node);
    if (misshapen !== null) throw new TypeError(`${where}.${misshapen}`);
    // As the validator resolves them: the absolute URI it noted, else the reference as written.
    for (const [keyword, noted] of [
      ['$ref', '__absolute_ref__'],
      ['$recursiveRef', '__absolute_recursive_ref__'],
    ] as const) {
      const ref = node[keyword];
      if (ref !== undefined && lookup[String(node[noted] ?? ref)] === undefined) {
        throw new TypeError(`${where}.${keyword} ${JSON.stringify(ref)} resolves to nothing`);
      }
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    for (const type of types) {
      if (!JSON_TYPES.has(type as string)) {
        throw new TypeError(`${where}.type ${JSON.stringify(type)} is not a JSON Schema type`);
      }
    }
    for (const pattern of patternsIn(node)) {
      try {
        new RegExp(pattern, 'u'); // as the validator compiles it
      } catch (cause) {
        throw new TypeError(`${where}: ${JSON.stringify(pattern)} is not a regular expression`, {
          cause,
        });
      }
      // Matched on the thread that answers requests: a pattern that backtracks exponentially
      // would let one short string stall the server (ReDoS).
      const nested = nestedRepetition(pattern);
      if (nested !== null) {
        throw new TypeError(
          `${where}: ${JSON.stringify(pattern)} repeats ${nested}, a repetition inside a repetition, which can take exponential time to match; write it without the nesting`,
        );
      }
    }
  });
  // Then `null` and empty containers through each subschema (`new Validator(...)` probes the root
  // with `null`): a reference to its own place with nothing between (`$ref: '#'`) throws on any
  // value that reaches it, and an empty container makes no recursive schema recurse. After the
  // walk, whose words are clearer for what it finds.
  for (const [node, where] of subschemas) {
    try {
      for (const probe of PROBES) validate(probe, node, '2020-12', lookup, false);
    } catch (cause) {
      const why = cause instanceof Error ? `: ${cause.message}` : '';
      throw new TypeError(`${where} is not a usable JSON Schema${why}`, { cause });
    }
  }
}

// The shapes draft 2020-12's meta-schema gives the values of the validation keywords (JSON Schema
// Validation §6) and of the keywords holding subschemas (Core §10). The validator takes other
// shapes without a word and applies them as no author meant (`required: "id"` requires "i" and
// "d"; `minLength: -1` holds for every string), or never lets a value through (`multipleOf: 0`):
// refused when compiled, naming the keyword and what it must be.
const COUNTS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
];
const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
const STRINGS = ['format', '$ref', '$id', '$anchor', '$dynamicRef', '$dynamicAnchor'];
// The validator's keywords holding a list of schemas, but `items`, whose 2020-12 value is one.
const SCHEMA_LISTS = Object.keys(schemaArrayKeyword).filter((keyword) => keyword !== 'items');

/** What is wrong with a keyword's value in `node` (`"<keyword> must …"`), or `null`. */
function misshapenKeyword(node: Schema): string | null {
  const has = (keyword: string) => Object.hasOwn(node, keyword);
  const value = (keyword: string): unknown => (node as Record<string, unknown>)[keyword];
  const isSchema = (v: unknown) => isObject(v) || typeof v === 'boolean';
  const uniqueStrings = (v: unknown) =>
    Array.isArray(v) && v.every((s) => typeof s === 'string') && new Set(v).size === v.length;
  for (const keyword of COUNTS) {
    const v = value(keyword);
    if (has(keyword) && !(Number.isInteger(v) && (v as number) >= 0)) {
      return `${keyword} must be a whole number, 0 or more`;
    }
  }
  for (const keyword of BOUNDS) {
    if (has(keyword) && typeof value(keyword) !== 'number') return `${keyword} must be a number`;
  }
  const step = value('multipleOf');
  if (has('multipleOf') && !(typeof step === 'number' && step > 0)) {
    return 'multipleOf must be a number above 0';
  }
  for (const keyword of STRINGS) {
    if (has(keyword) && typeof value(keyword) !== 'string') return `${keyword} must be a string`;
  }
  if (has('required') && !uniqueStrings(value('required'))) {
    return 'required must be an array of distinct property names';
  }
  // Empty, it matches nothing: every value would be refused (draft 4 required an item, too).
  const values = value('enum');
  if (has('enum') && !(Array.isArray(values) && values.length > 0)) {
    return 'enum must be a non-empty array';
  }
  if (has('uniqueItems') && typeof value('uniqueItems') !== 'boolean') {
    return 'uniqueItems must be true or false';
  }
  const dependentRequired = value('dependentRequired');
  if (
    has('dependentRequired') &&
    !(isObject(dependentRequired) && Object.values(dependentRequired).every(uniqueStrings))
  ) {
    return 'dependentRequired must map property names to arrays of distinct property names';
  }
  for (const keyword of SCHEMA_LISTS) {
    const v = value(keyword);
    if (has(keyword) && !(Array.isArray(v) && v.length > 0 && v.every(isSchema))) {
      return `${keyword} must be a non-empty array of schemas`;
    }
  }
  for (const keyword of Object.keys(schemaKeyword)) {
    const v = value(keyword);
    // `items` as an array of schemas is the tuple form of drafts before 2020-12, still applied.
    const tuple = keyword === 'items' && Array.isArray(v) && v.every(isSchema);
    if (has(keyword) && !isSchema(v) && !tuple) return `${keyword} must be a schema`;
  }
  for (const keyword of Object.keys(schemaMapKeyword)) {
    const v = value(keyword);
    if (has(keyword) && !(isObject(v) && Object.values(v).every(isSchema))) {
      return `${keyword} must be an object whose values are schemas`;
    }
  }
  return null;
}

/** A pattern the validator applies, and where it sits. */
export interface SchemaPattern {
  pattern: string;
  /** As `compileSchema` names places: `at`, then the keywords down to the subschema. */
  where: string;
}

/**
 * Every regular expression the validator would match an instance against: each subschema's
 * `pattern` and the names of its `patternProperties`. For a check the kit cannot make itself: the
 * daemon proves each one free of super-linear backtracking before it accepts a schema from a token.
 */
export function schemaPatterns(schema: JsonSchema, at: string): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  eachSubschema(jsonCopy(schema, at), at, (node, where) => {
    for (const pattern of patternsIn(node)) found.push({ pattern, where });
  });
  return found;
}

/** The node's `pattern`, if it has one, and its `patternProperties` names. */
function patternsIn(node: Schema): string[] {
  return [
    ...(node.pattern === undefined ? [] : [String(node.pattern)]), // as the validator reads it
    ...Object.keys(isObject(node.patternProperties) ? node.patternProperties : {}),
  ];
}

/**
 * Calls `visit` on each subschema, named from `at`. The walk follows the validator's own tables
 * of the keywords that hold subschemas, so it looks where the validator looks. The schema is a
 * JSON tree (a copy through JSON), so no node is reached twice.
 */
function eachSubschema(
  schema: unknown,
  at: string,
  visit: (node: Schema, where: string) => void,
): void {
  const walk = (node: unknown, pointer: string): void => {
    if (!isObject(node)) return;
    visit(node as Schema, `${at}${pointer}`);
    for (const [keyword, value] of Object.entries(node)) {
      if (Array.isArray(value)) {
        if (Object.hasOwn(schemaArrayKeyword, keyword)) {
          for (const [i, item] of value.entries()) walk(item, `${pointer}.${keyword}[${i}]`);
        }
      } else if (Object.hasOwn(SUBSCHEMA_MAP, keyword)) {
        if (!isObject(value)) continue;
        for (const [key, item] of Object.entries(value)) walk(item, `${pointer}.${keyword}.${key}`);
      } else if (Object.hasOwn(schemaKeyword, keyword)) {
        walk(value, `${pointer}.${keyword}`);
      }
    }
  };
  walk(schema, '');
}

// Keywords that apply subschemas to the same instance, and fail saying only that one of those
// did ("A subschema had errors.", "does not match every subschema"), at the same place in the
// instance as the failure inside, which is the one to name.
const IN_PLACE = new Set([
  '$ref',
  '$recursiveRef',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
]);

/**
 * The error deepest in the instance: the cause, where its ancestors only say "does not match". Of
 * those as deep, the first that is not an in-place wrapper's.
 */
function deepest(errors: readonly OutputUnit[]): OutputUnit {
  return errors.reduce((best, unit) => (depth(unit) > depth(best) ? unit : best));
}

function depth(unit: OutputUnit): number {
  return location(unit).split('/').length - (IN_PLACE.has(unit.keyword) ? 0.5 : 0);
}

/**
 * The failing location as a JSON Pointer (RFC 6901), e.g. `/title`. For `required`, the missing
 * property itself, which the validator names only in its message.
 */
function location(unit: OutputUnit): string {
  const pointer = pointerOf(unit.instanceLocation);
  const missing = unit.keyword === 'required' ? /"(.*)"\.$/.exec(unit.error) : null;
  if (missing?.[1] === undefined) return pointer;
  return `${pointer}/${missing[1].replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * The validator gives locations as URI fragments (`#/first%20name`, RFC 6901 §6); the pointer's
 * own string form has the key as written.
 */
function pointerOf(fragment: string): string {
  const encoded = fragment.replace(/^#/, '');
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** A JSON Pointer's property names, unescaped (RFC 6901 §4) and joined with `.`. */
function fieldName(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}
