/** `Svc-Request-Id`: the caller's id ties its log line to ours; every answer carries one. */

export const REQUEST_ID_HEADER = 'Svc-Request-Id';

const MAX_ID_LENGTH = 200;

/** The caller's id when it sent a valid one, else `null`. */
export function callerRequestId(request: Request): string | null {
  const id = request.headers.get('svc-request-id'); // lower case, as in `readBody`
  return id !== null && isVisibleAscii(id) ? id : null;
}

/**
 * 1-200 visible ASCII characters, so the id is safe to echo in a header and a log line. A loop,
 * not a pattern: on every request, and a pattern's call costs several times this scan.
 */
function isVisibleAscii(id: string): boolean {
  if (id.length === 0 || id.length > MAX_ID_LENGTH) return false;
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/**
 * A generator of fresh ids: UUID-shaped (RFC 9562 §5.8, version 8), random per generator in their
 * first 74 bits and counting in the last 48. An id only has to be unique, and counting costs far
 * less per answer than a random UUID.
 */
export function createRequestIds(): () => string {
  const random = crypto.randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-…, V one of 8 9 a b
  const prefix = `${random.slice(0, 14)}8${random.slice(15, 24)}`;
  let count = 0;
  return () => prefix + (count++ % 0x1000000000000).toString(16).padStart(12, '0');
}
