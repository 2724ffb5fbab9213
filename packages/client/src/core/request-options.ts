import type { HeadersLike } from '../internal/headers.ts';

/** The last argument of every client method. */
export interface RequestOptions {
  /** Extra headers for this call; they win over the client's, and `null` removes one. */
  headers?: HeadersLike;
  /** Aborting it ends the call with `APIUserAbortError`; an aborted call is never retried. */
  signal?: AbortSignal;
  /** Milliseconds per attempt (default: the client's, 60 000). */
  timeout?: number;
  /** Retries after the first attempt (default: the client's, 2). */
  maxRetries?: number;
  /**
   * The `Idempotency-Key` of a POST, PUT, PATCH or DELETE, as the Stainless SDKs take it: the same
   * key on a later call makes the daemon answer the first call's result instead of acting again.
   * Without it each call gets its own key, shared by its retries.
   */
  idempotencyKey?: string;
}

/** Options of a streaming method: no `timeout` (streams are long-lived), plus `after`. */
export interface StreamOptions extends Omit<RequestOptions, 'timeout'> {
  /** Resume after this event id: sent as `Last-Event-ID` (WHATWG HTML §9.2). */
  after?: string | number;
}

/** The `fetch` the client calls; any WHATWG-compatible implementation works. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;
