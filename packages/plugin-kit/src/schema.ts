/**
 * Command input checks: the quick check of `schema-accept.ts` answers the valid inputs of common
 * schemas; the validator (`json-schema.ts`) judges everything else.
 */
import { PluginError } from './errors.ts';
import { compileSchema } from './json-schema.ts';
import { compileAccept } from './schema-accept.ts';
import type { JsonObject, JsonSchema } from './types.ts';

export type InputCheck = (input: JsonObject) => void;

/** Compiles a command's schema once; the check throws 422 `validation_failed` naming the field. */
export function compileInput(schema: JsonSchema, at: string): InputCheck {
  const check = compileSchema(schema, at);
  // Valid input, the usual case, is mostly answered by the quick check alone.
  const accepts = compileAccept(schema);
  return (input) => {
    if (accepts?.(input)) return;
    const failure = check(input);
    if (failure === null) return;
    // `field` names the property as the daemon's errors do (`title`, `address.city`); the
    // message keeps the exact JSON Pointer, which a key holding a `.` or `/` needs.
    const { pointer, field, reason } = failure;
    throw new PluginError(422, 'validation_failed', `${pointer || '/'}: ${reason}`, {
      ...(field !== '' && { field }),
    });
  };
}
