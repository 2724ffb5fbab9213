/**
 * Input validation with @cfworker/json-schema (draft 2020-12): it interprets schemas instead of
 * generating code, so it runs where `new Function` is forbidden (workerd). `schema-accept.ts`
 * answers the valid inputs of common schemas faster; the validator judges everything else.
 */
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { PluginError } from './errors.ts';
import { compileAccept } from './schema-accept.ts';
import type { JsonObject, JsonSchema } from './types.ts';

export type InputCheck = (input: JsonObject) => void;

/** Compiles a command's schema once; the check throws 422 `validation_failed` naming the field. */
export function compileInput(schema: JsonSchema, at: string): InputCheck {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, '2020-12', false);
  } catch (cause) {
    throw new TypeError(`${at} is not a usable JSON Schema`, { cause });
  }
  // Valid input, the usual case, is mostly answered by the quick check alone.
  const accepts = compileAccept(schema);
  return (input) => {
    if (accepts?.(input)) return;
    const result = validator.validate(input);
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

/** The error deepest in the instance: the cause, where its ancestors only say "does not match". */
function deepest(errors: readonly OutputUnit[]): OutputUnit {
  return errors.reduce((best, unit) => (depth(unit) > depth(best) ? unit : best));
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

function depth(unit: OutputUnit): number {
  return location(unit).split('/').length;
}
