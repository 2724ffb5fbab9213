import { errorEnvelope } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { Call, Reply } from './call.ts';

/**
 * The error envelope of `error` as a response, with any extra headers (`Allow`, …). A 401 names
 * the scheme it wants in `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3); a 409 says it is
 * not worth a retry.
 */
export function errorResponse(
  c: Call,
  error: ApiError,
  headers: Record<string, string> = {},
): Reply {
  if (error.code === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer realm="svc"';
  // Clients built as the Stainless SDKs are (ours too) retry a 409, taking it for a lock or a
  // replay in flight; this daemon's 409s are final (a state, a key used for another request),
  // and `x-should-retry` is those clients' way to hear it.
  Object.assign(headers, finalHeaders(error.status));
  // A plugin that failed may have acted before it did: a retry would call it again.
  if (error.code === 'provider_error') headers['x-should-retry'] = 'false';
  const extra: { field?: string; received?: unknown } = {};
  if (error.field !== undefined) extra.field = error.field;
  if (error.hasReceived) extra.received = error.received;
  const body = errorEnvelope(error.code, error.message, c.requestId, extra);
  return c.json(body, error.status, headers);
}

/** `x-should-retry: false` for a 409, wherever one is answered (a replay of one too). */
export function finalHeaders(status: number): Record<string, string> {
  return status === 409 ? { 'x-should-retry': 'false' } : {};
}

/**
 * A refusal or a failure as an answer: an `ApiError` is answered as is; anything else is a bug, logged with its stack
 * and answered 500 `internal_error` without internals.
 */
export function handleError(error: unknown, c: Call): Reply {
  if (error instanceof ApiError) return errorResponse(c, error);
  c.log.error({ err: error, request_id: c.requestId }, 'unhandled error');
  return errorResponse(c, new ApiError('internal_error', 'internal error; see the daemon log'));
}

/**
 * 422 `validation_failed` from a zod failure: `field` is the dotted path of the first issue (an
 * unknown key names the key), the message lists up to three issues.
 */
export function validationError(error: z.ZodError, where: 'body' | 'query' | 'params'): ApiError {
  // An unknown key is listed first: zod reports it after every missing field, and a misspelt
  // key is usually why one is missing.
  const unknownFirst = [
    ...error.issues.filter((issue) => issue.code === 'unrecognized_keys'),
    ...error.issues.filter((issue) => issue.code !== 'unrecognized_keys'),
  ];
  const issues = unknownFirst.slice(0, 3).map((issue) => {
    const path = issuePath(issue);
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  const first = error.issues[0];
  const field = first === undefined ? '' : issuePath(first);
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  const message = `invalid request ${where}: ${issues.join('; ')}${more}`;
  return new ApiError('validation_failed', message, field === '' ? {} : { field });
}

function issuePath(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  return path.join('.');
}
