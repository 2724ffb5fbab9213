/**
 * A node's `output_schema` (JSON Schema 2020-12, interpreted by @cfworker/json-schema): tried
 * when the node is created, so a schema that cannot run (an unresolvable `$ref`) fails at once, and applied to the
 * submitted result, whose refusal (422) names the failing location so a model can correct itself.
 */
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { ApiError } from '../errors.ts';

export type ResultCheck = (result: unknown) => void;

export function compileOutputSchema(schema: Record<string, unknown>): ResultCheck {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, '2020-12', false);
    // References resolve on first use: one probe surfaces a schema that can never run.
    validator.validate(null);
  } catch (error) {
    throw new ApiError(
      'invalid_request',
      `output_schema is not a usable JSON Schema: ${(error as Error).message}`,
      { field: 'output_schema' },
    );
  }
  return (result) => {
    const outcome = validator.validate(result);
    if (outcome.valid) return;
    const unit = deepest(outcome.errors);
    const pointer = pointerOf(unit.instanceLocation);
    const at = pointer || '/';
    throw new ApiError(
      'validation_failed',
      `the result does not match output_schema at ${at}: ${unit.error}`,
      // Named as the other fields are (`result`, `result.n`); the message keeps the JSON Pointer.
      { field: fieldOf(pointer) },
    );
  };
}

/** The error deepest in the result: the cause, where its ancestors only say "does not match". */
function deepest(errors: readonly OutputUnit[]): OutputUnit {
  const depth = (u: OutputUnit) => u.instanceLocation.split('/').length;
  return errors.reduce((best, unit) => (depth(unit) > depth(best) ? unit : best));
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

/** `result` and the pointer's property names, unescaped (RFC 6901 §4), joined with `.`. */
function fieldOf(pointer: string): string {
  const names = pointer
    .split('/')
    .slice(1)
    .map((name) => name.replaceAll('~1', '/').replaceAll('~0', '~'));
  return ['result', ...names].join('.');
}
