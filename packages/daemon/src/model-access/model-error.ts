/**
 * One error class for everything a model call can fail with, classified so the agent loop can
 * decide what to do next without knowing which provider it talked to: park the node and try again
 * later (`retryable`), or record a fault and fail it.
 */
import { APICallError, LoadAPIKeyError, RetryError } from 'ai';

export type ModelErrorCode =
  /** The key is missing, wrong or lacks permission (401, 403). Retrying cannot help. */
  | 'auth'
  /** The provider throttled us (429). */
  | 'rate_limit'
  /** The provider is overloaded or failing on its side (5xx, Anthropic's 529). */
  | 'overloaded'
  /** The provider refused the request itself (other 4xx, a malformed or unparsable answer). */
  | 'bad_request'
  /** The provider could not be reached, or the connection broke. */
  | 'network'
  /** The caller's signal aborted the call (cancel, interrupt, shutdown). */
  | 'aborted'
  /** A `scripted` model was asked for a turn past the end of its script. */
  | 'script_exhausted';

const RETRYABLE: ReadonlySet<ModelErrorCode> = new Set(['rate_limit', 'overloaded', 'network']);

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
  /** True when the same request may succeed later: the caller may park and try again. */
  readonly retryable: boolean;
  /** The provider's HTTP status, when there was one. */
  readonly status: number | undefined;
  /** How many requests were made before giving up (1 = no retry). */
  readonly attempts: number;

  constructor(
    code: ModelErrorCode,
    message: string,
    options: { status?: number; attempts?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = RETRYABLE.has(code);
    this.status = options.status;
    this.attempts = options.attempts ?? 1;
  }
}

/** Classifies an HTTP status from a provider. */
function codeForStatus(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'network';
  if (status >= 500) return 'overloaded';
  return 'bad_request';
}

/** Error `type`s of Anthropic's and OpenAI's error bodies, for errors that carry no status. */
const ERROR_TYPE_CODES = new Map<string, ModelErrorCode>([
  ['authentication_error', 'auth'],
  ['permission_error', 'auth'],
  ['rate_limit_error', 'rate_limit'],
  ['rate_limit_exceeded', 'rate_limit'],
  ['overloaded_error', 'overloaded'],
  ['api_error', 'overloaded'],
  ['server_error', 'overloaded'],
]);

function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted')
  );
}

/**
 * A connection that broke: undici reports one as a `TypeError` ("fetch failed", or "terminated"
 * mid-response), with the socket's error code further down the cause chain; the SDK may wrap it
 * in an `APICallError` ("Failed to process successful response").
 */
function isNetworkFailure(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof TypeError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code)) return true;
  }
  return false;
}

/**
 * Maps whatever a model call threw (or streamed as an `error` part) to a `ModelError`. Errors the
 * SDK gave up on after retrying arrive wrapped in a `RetryError`: the last attempt decides the
 * class, and `attempts` counts them all.
 */
export function toModelError(error: unknown, signal?: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || isAbortError(error)) {
    return new ModelError('aborted', 'the model call was aborted', { cause: error });
  }
  if (RetryError.isInstance(error)) {
    const inner = toModelError(error.lastError, signal);
    return new ModelError(inner.code, inner.message, {
      ...(inner.status !== undefined && { status: inner.status }),
      attempts: error.errors.length,
      cause: error,
    });
  }
  if (LoadAPIKeyError.isInstance(error)) {
    return new ModelError('auth', error.message, { cause: error });
  }
  if (isNetworkFailure(error)) {
    return new ModelError('network', (error as Error).message, { cause: error });
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    // No status: fetch itself failed (refused, reset, DNS), which the SDK reports this way.
    const code = status === undefined ? 'network' : codeForStatus(status);
    return new ModelError(code, error.message, {
      ...(status !== undefined && { status }),
      cause: error,
    });
  }
  // An error event in the middle of a stream arrives as a plain object: with the status the
  // provider documents for it (Anthropic), or only with the provider's error type (OpenAI's chat
  // protocol).
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { message, statusCode, type } = error as Record<string, unknown>;
    const status = typeof statusCode === 'number' ? statusCode : undefined;
    const code =
      status !== undefined
        ? codeForStatus(status)
        : (ERROR_TYPE_CODES.get(String(type)) ?? 'bad_request');
    return new ModelError(code, String(message), {
      ...(status !== undefined && { status }),
      cause: error,
    });
  }
  return new ModelError('bad_request', String(error), { cause: error });
}
