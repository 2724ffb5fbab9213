/**
 * Input validation with @cfworker/json-schema (draft 2020-12): it interprets schemas instead of
 * generating code, so it runs where `new Function` is forbidden (workerd). `schema-accept.ts`
 * answers the valid inputs of common schemas faster; the validator judges everything else.
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
import { PluginError } from './errors.ts';
import { isObject } from './is-object.ts';
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
    const reason = reasonOf(unit);
    const message = `${pointer || '/'}: ${reason}`;
    // `field` names the property as the daemon's errors do (`title`, `address.city`); the
    // message keeps the exact JSON Pointer, which a key holding a `.` or `/` needs.
    const field = fieldName(pointer);
    throw new PluginError(422, 'validation_failed', message, field === '' ? {} : { field });
  };
}

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
const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];

/**
 * What the validator would only find out on a request, found when the handler is made: a `$ref`
 * that resolves to nothing and a pattern that is no regular expression fail every call that
 * reaches them with a 500, and an unknown `type` refuses every input with a 422. The walk follows
 * the validator's own tables of the keywords that hold subschemas, so it looks where it looks.
 * @param lookup the validator's subschemas by absolute URI, where it resolves each `$ref`
 */
function checkUsable(schema: unknown, lookup: Record<string, unknown>, at: string): void {
  const seen = new Set<object>();
  const visit = (node: unknown, pointer: string): void => {
    if (!isObject(node) || seen.has(node)) return;
    seen.add(node);
    const where = `${at}${pointer}`;
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
      if (!TYPES.includes(type as string)) {
        throw new TypeError(`${where}.type ${JSON.stringify(type)} is not a JSON Schema type`);
      }
    }
    const patterns = [
      ...(node.pattern === undefined ? [] : [node.pattern]),
      ...Object.keys(isObject(node.patternProperties) ? node.patternProperties : {}),
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
    for (const [keyword, value] of Object.entries(node)) {
      if (Array.isArray(value)) {
        if (Object.hasOwn(schemaArrayKeyword, keyword)) {
          for (const [i, item] of value.entries()) visit(item, `${pointer}.${keyword}[${i}]`);
        }
      } else if (Object.hasOwn(SUBSCHEMA_MAP, keyword)) {
        if (!isObject(value)) continue;
        for (const [key, item] of Object.entries(value))
          visit(item, `${pointer}.${keyword}.${key}`);
      } else if (Object.hasOwn(schemaKeyword, keyword)) {
        visit(value, `${pointer}.${keyword}`);
      }
    }
  };
  visit(schema, '');
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
