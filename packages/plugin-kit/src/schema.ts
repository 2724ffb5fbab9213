/**
 * Input validation with @cfworker/json-schema (draft 2020-12): it interprets schemas instead of
 * generating code, so it runs where `new Function` is forbidden (workerd). `schema-accept.ts`
 * answers the valid inputs of common schemas faster; the validator judges everything else.
 */
import { dereference, type OutputUnit, type Schema, validate } from '@cfworker/json-schema';
import { PluginError } from './errors.ts';
import { compileAccept } from './schema-accept.ts';
import type { JsonObject, JsonSchema } from './types.ts';

export type InputCheck = (input: JsonObject) => void;

/** Compiles a command's schema once; the check throws 422 `validation_failed` naming the field. */
export function compileInput(schema: JsonSchema, at: string): InputCheck {
  // What `new Validator(schema, '2020-12', false)` does, with its table of subschemas in reach.
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(schema as Schema);
  } catch (cause) {
    throw new TypeError(`${at} is not a usable JSON Schema`, { cause });
  }
  checkUsable(schema, lookup, at);
  // Valid input, the usual case, is mostly answered by the quick check alone.
  const accepts = compileAccept(schema);
  return (input) => {
    if (accepts?.(input)) return;
    const result = validate(input, schema as Schema, '2020-12', lookup, false);
    if (result.valid) return;
    const unit = deepest(result.errors);
    const pointer = location(unit);
    // A `false` subschema (e.g. `additionalProperties: false`) reports only "False boolean schema."
    const reason = unit.keyword === 'false' ? 'This property is not allowed.' : unit.error;
    const message = `${pointer || '/'}: ${reason}`;
    // `field` names the property as the daemon's errors do (`title`, `address.city`); the
    // message keeps the exact JSON Pointer, which a key holding a `.` or `/` needs.
    const field = fieldName(pointer);
    throw new PluginError(422, 'validation_failed', message, field === '' ? {} : { field });
  };
}

// The keywords whose value is a subschema, a list of them, or a map of them (draft 2020-12, and
// the older ones the validator still applies).
const SUBSCHEMA = [
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
];
const SUBSCHEMA_LIST = ['prefixItems', 'allOf', 'anyOf', 'oneOf', 'items'];
const SUBSCHEMA_MAP = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
];
const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];

/**
 * What the validator would only find out on a request, found when the handler is made: a `$ref`
 * that resolves to nothing and a pattern that is no regular expression fail every call that
 * reaches them with a 500, and an unknown `type` refuses every input with a 422.
 * @param lookup the validator's subschemas by absolute URI, where it resolves each `$ref`
 */
function checkUsable(schema: unknown, lookup: Record<string, unknown>, at: string): void {
  const seen = new Set<object>();
  const visit = (node: unknown, pointer: string): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || seen.has(node)) return;
    seen.add(node);
    const sub = node as Record<string, unknown>;
    const where = `${at}${pointer}`;
    // The validator resolves `$ref` against the absolute URI it noted on the subschema.
    for (const [keyword, noted] of [
      ['$ref', '__absolute_ref__'],
      ['$recursiveRef', '__absolute_recursive_ref__'],
    ] as const) {
      const uri = sub[noted];
      if (typeof uri === 'string' && lookup[uri] === undefined) {
        throw new TypeError(`${where}.${keyword} "${String(sub[keyword])}" resolves to nothing`);
      }
    }
    const types = Array.isArray(sub.type) ? sub.type : sub.type === undefined ? [] : [sub.type];
    for (const type of types) {
      if (!TYPES.includes(type as string)) {
        throw new TypeError(`${where}.type ${JSON.stringify(type)} is not a JSON Schema type`);
      }
    }
    const patterns = [
      ...(sub.pattern === undefined ? [] : [sub.pattern]),
      ...Object.keys(isMap(sub.patternProperties) ? sub.patternProperties : {}),
    ];
    for (const pattern of patterns) {
      try {
        new RegExp(pattern as string, 'u'); // as the validator compiles it
      } catch (cause) {
        throw new TypeError(`${where}: ${JSON.stringify(pattern)} is not a regular expression`, {
          cause,
        });
      }
    }
    for (const keyword of SUBSCHEMA) visit(sub[keyword], `${pointer}.${keyword}`);
    for (const keyword of SUBSCHEMA_LIST) {
      const list = sub[keyword];
      if (!Array.isArray(list)) continue;
      for (const [i, item] of list.entries()) visit(item, `${pointer}.${keyword}[${i}]`);
    }
    for (const keyword of SUBSCHEMA_MAP) {
      const map = sub[keyword];
      if (!isMap(map)) continue;
      for (const [key, value] of Object.entries(map)) visit(value, `${pointer}.${keyword}.${key}`);
    }
  };
  visit(schema, '');
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error deepest in the instance: the cause, where its ancestors only say "does not match". Of
 * those as deep, the first, but never a `$ref`'s own "A subschema had errors." over the failure
 * inside what it refers to, which stands at the same place in the instance.
 */
function deepest(errors: readonly OutputUnit[]): OutputUnit {
  return errors.reduce((best, unit) => (depth(unit) > depth(best) ? unit : best));
}

function depth(unit: OutputUnit): number {
  const refers = unit.keyword === '$ref' || unit.keyword === '$recursiveRef';
  return location(unit).split('/').length - (refers ? 0.5 : 0);
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
