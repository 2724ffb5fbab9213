/**
 * The retry policy of the Stainless-generated SDKs, shared by every call and by stream
 * reconnects: which answers are worth another attempt, and how long to wait before it.
 */

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
const MAX_SERVER_DELAY_MS = 60_000;

/**
 * `x-should-retry` lets the server overrule the status; otherwise retry request timeouts (408),
 * conflicts that are usually a lock or an idempotent replay in flight (409), rate limits (429)
 * and server errors (≥ 500).
 */
export function shouldRetry(status: number, headers: Headers): boolean {
  const override = headers.get('x-should-retry');
  if (override === 'true') return true;
  if (override === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first retry). A server hint wins
 * when it is within (0, 60 s]: `retry-after-ms`, else `Retry-After` as delay-seconds or an
 * HTTP-date (RFC 9110 §10.2.3). Otherwise exponential backoff from 0.5 s capped at 8 s, minus
 * up to 25 % jitter so many clients do not retry in lockstep.
 */
export function retryDelay(retry: number, headers?: Headers): number {
  const hinted = serverDelay(headers);
  if (hinted !== undefined && hinted > 0 && hinted <= MAX_SERVER_DELAY_MS) return hinted;
  return backoff(retry);
}

export function backoff(retry: number): number {
  const delay = Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_DELAY_MS);
  return delay * (1 - Math.random() * 0.25);
}

function serverDelay(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date - Date.now();
}
