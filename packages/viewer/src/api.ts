import { pageKey } from './session.ts';
import type { Page } from './types.ts';

/** A refusal of the daemon, from its error envelope. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** Called when the daemon answers 401: the session expired or was revoked. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

/** Tells the app the session is over (a 401, from a call or the event stream). */
export function sessionEnded(): void {
  onUnauthorized();
}

/**
 * The headers of every request of the page: the session's page key, which the daemon asks of a
 * cookie's every request, a custom header no other site can send without a preflight (its CSRF
 * rule), and a key no other port of the host is given (`session.ts`).
 */
export function viewerHeaders(): Record<string, string> {
  return { 'Svc-Viewer': pageKey() ?? '' };
}

/**
 * One call of the daemon's `/v1` as the logged-in viewer: the session cookie goes along
 * (same origin), with the page key (`viewerHeaders`).
 */
export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  again = true,
): Promise<T> {
  const sent = pageKey();
  const headers = viewerHeaders();
  const init: RequestInit = { method, credentials: 'same-origin', headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  const value: unknown = text === '' ? null : JSON.parse(text);
  if (!res.ok) {
    const error = (value as { error?: { code?: string; message?: string } } | null)?.error;
    // A login in another tab replaced the cookie, and its key too by now: once more with that.
    if (res.status === 401 && again && pageKey() !== sent) return api(method, path, body, false);
    if (res.status === 401) sessionEnded();
    throw new ApiError(res.status, error?.code ?? 'error', error?.message ?? res.statusText);
  }
  return value as T;
}

/** Every page of a list route, up to `maxPages` (a bound, not an expectation). */
export async function allPages<T>(path: string, maxPages = 50): Promise<T[]> {
  const rows: T[] = [];
  const sep = path.includes('?') ? '&' : '?';
  let after: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const cursor: string = after === null ? '' : `&after=${encodeURIComponent(after)}`;
    const page: Page<T> = await api<Page<T>>('GET', `${path}${sep}limit=200${cursor}`);
    rows.push(...page.data);
    if (!page.has_more || page.next_cursor === null) break;
    after = page.next_cursor;
  }
  return rows;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
