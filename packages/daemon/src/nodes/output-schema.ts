/**
 * A node's `output_schema`: compiled when the node is created, so a schema that cannot run (an
 * unresolvable `$ref`, a pattern that is no regular expression) fails at once, and applied to the
 * submitted result, whose refusal (422) names the failing location so a model can correct itself.
 * `POST /v1/llm` checks a model's answer by the same schema rules. They are the plugin kit's for
 * command input, so a schema means the same everywhere in svc.
 */
import { compileSchema, type SchemaCheck } from '@svc/plugin-kit/json-schema';
import { ApiError } from '../errors.ts';

export type ResultCheck = (result: unknown) => void;

/**
 * The schema's check, or 400 `invalid_request` naming `at` (the field that holds it) and what is
 * wrong in it: for every schema a caller hands the daemon.
 */
export function compileUsable(schema: Record<string, unknown>, at = 'output_schema'): SchemaCheck {
  try {
    return compileSchema(schema, at);
  } catch (error) {
    // The kit's TypeError names the place from `at` on and says what is wrong there.
    const message =
      error instanceof TypeError ? error.message : `${at} is not a usable JSON Schema`;
    throw new ApiError('invalid_request', message, { field: at });
  }
}

export function compileOutputSchema(schema: Record<string, unknown>): ResultCheck {
  const check = compileUsable(schema);
  return (result) => {
    const failure = check(result);
    if (failure === null) return;
    throw new ApiError(
      'validation_failed',
      `the result does not match output_schema at ${failure.pointer || '/'}: ${failure.reason}`,
      // Named as the other fields are (`result`, `result.n`); the message keeps the JSON Pointer.
      { field: failure.field === '' ? 'result' : `result.${failure.field}` },
    );
  };
}
