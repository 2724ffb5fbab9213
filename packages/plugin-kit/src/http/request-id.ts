/** `Svc-Request-Id`: the caller's id ties its log line to ours; every answer carries one. */

export const REQUEST_ID_HEADER = 'Svc-Request-Id';

// Visible ASCII only, so the id is safe to echo in a header and a log line.
const VALID_ID = /^[\x21-\x7e]{1,200}$/;

/** The caller's id when it sent a valid one, else `null`. */
export function callerRequestId(request: Request): string | null {
  const id = request.headers.get(REQUEST_ID_HEADER);
  return id !== null && VALID_ID.test(id) ? id : null;
}
