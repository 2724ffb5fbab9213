/**
 * `PluginError` is the one error a command handler throws on purpose: its status, stable `code`
 * and message reach the caller in the error envelope of DESIGN §6. Anything else thrown becomes
 * a 500 `internal_error` whose message never repeats the thrown one.
 */

export interface PluginErrorOptions {
  /** The offending input location or name, e.g. `/title`. */
  field?: string;
  /** What was received there (echoed to the caller: never put a secret in it). */
  received?: unknown;
  cause?: unknown;
}

export class PluginError extends Error {
  override name = 'PluginError';
  status: number;
  code: string;
  field?: string;
  received?: unknown;

  constructor(status: number, code: string, message: string, options: PluginErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`PluginError status must be an integer from 400 to 599, got ${status}`);
    }
    if (typeof code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(code)) {
      throw new TypeError(`PluginError code must be a snake_case string, got ${String(code)}`);
    }
    // The envelope sends `field` as a string; anything else would fail the answer itself.
    if (options.field !== undefined && typeof options.field !== 'string') {
      throw new TypeError(`PluginError field must be a string, got ${typeof options.field}`);
    }
    this.status = status;
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
    if (options.received !== undefined) this.received = options.received;
  }
}

/** The body of every non-2xx answer: `{"error": {code, message, field?, received?, request_id}}`. */
function errorEnvelope(error: PluginError, requestId: string): { error: JsonError } {
  const body: JsonError = { code: error.code, message: error.message };
  if (error.field !== undefined) body.field = error.field;
  if (error.received !== undefined) body.received = error.received;
  body.request_id = requestId;
  return { error: body };
}

/**
 * The envelope as JSON text. A `received` that JSON cannot hold (a BigInt, a cycle, a `toJSON`
 * that throws) is left out rather than failing the answer: the status, code and message the
 * author chose still reach the caller.
 */
export function errorText(error: PluginError, requestId: string): string {
  const envelope = errorEnvelope(error, requestId);
  try {
    return JSON.stringify(envelope);
  } catch {
    delete envelope.error.received;
    return JSON.stringify(envelope);
  }
}

interface JsonError {
  code: string;
  message: string;
  field?: string;
  received?: unknown;
  request_id?: string;
}

/** The envelope of an unexpected throw: generic on purpose, the thrown message may hold secrets. */
export function internalError(): PluginError {
  return new PluginError(500, 'internal_error', 'The command failed unexpectedly');
}

/** Maps anything a handler threw to the error the caller sees. */
export function toPluginError(thrown: unknown): PluginError {
  return thrown instanceof PluginError ? thrown : internalError();
}
