/**
 * The one error envelope every `/v1` answer uses (DESIGN §6): a stable string `code`, its HTTP
 * status, a human message, optionally the offending `field` and what was `received`, and the
 * request id that ties the answer to the daemon's log line.
 */

/** Every error code the API may answer, with the HTTP status it always travels with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  request_id_missing: 400,
  unauthorized: 401,
  scope_missing: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  conflict: 409,
  payload_too_large: 413,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  // A plugin a provider call reached failed, or answered what the daemon cannot pass on.
  provider_error: 502,
  not_ready: 503,
  // A command that must run confined, on a host where the sandbox cannot be made (issue 28).
  sandbox_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  /** An `ErrorCode`; typed `string` so a client keeps working when a newer daemon adds codes. */
  code: string;
  message: string;
  field?: string;
  received?: unknown;
  request_id: string;
}

export interface ErrorEnvelope {
  error: ErrorBody;
}

/** Header carrying the request id both ways (the caller's if valid, else a fresh one). */
export const REQUEST_ID_HEADER = 'Svc-Request-Id';

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

export function errorEnvelope(
  code: ErrorCode,
  message: string,
  requestId: string,
  extra?: { field?: string; received?: unknown },
): ErrorEnvelope {
  const error: ErrorBody = { code, message, request_id: requestId };
  if (extra?.field !== undefined) error.field = extra.field;
  if (extra !== undefined && 'received' in extra) error.received = extra.received;
  return { error };
}
