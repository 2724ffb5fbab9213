import { REQUEST_ID_HEADER } from '@svc/protocol';
import { linkAbort } from '../internal/abort.ts';
import { type HeaderRecord, type HeadersLike, mergeHeaders } from '../internal/headers.ts';
import { checkMaxRetries, checkTimeout, show } from '../internal/options.ts';
import { sleep } from '../internal/sleep.ts';
import { uuid4 } from '../internal/uuid.ts';
import { APIPromise } from './api-promise.ts';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  SvcError,
} from './errors.ts';
import { PagePromise } from './page-promise.ts';
import type { ListPage } from './pages.ts';
import type { Fetch, RequestOptions, StreamOptions } from './request-options.ts';
import { retryDelay, shouldRetry } from './retry.ts';
import { type Resume, Stream } from './stream.ts';

export interface TransportConfig {
  baseUrl: string;
  token: string | undefined;
  timeout: number;
  maxRetries: number;
  fetch: Fetch;
  defaultHeaders: HeadersLike | undefined;
}

/** Query parameters; arrays are sent comma-separated, `undefined` is left out. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

/** An answer whose headers are in; its body is still read under the attempt's timeout. */
export interface RawResponse {
  response: Response;
  requestId: string | null;
  /** Ends the attempt's timeout; the caller's signal can still abort the body (a stream). */
  endTimeout(): void;
  /** Ends the attempt: timeout and link to the caller's signal (the body has been read). */
  release(): void;
  /** The error for a failure while reading the body. */
  fail(cause: unknown): APIError<undefined>;
}

interface Call {
  method: string;
  path: string;
  query: Query | undefined;
  body: unknown;
  headers: HeadersLike | undefined;
  signal: AbortSignal | undefined;
  timeout: number;
  maxRetries: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The one path every call takes: URL and headers, per-attempt timeout, retries with the shared
 * policy, and the mapping of failures to the error classes.
 */
export class Transport {
  readonly #config: TransportConfig;
  /**
   * The layers every call shares (accept, auth, `defaultHeaders`), merged and checked once, with
   * and without a JSON body's content type. A call adds its own headers on top, or copies one.
   */
  readonly #base: { bare: HeaderRecord; json: HeaderRecord };

  constructor(config: TransportConfig) {
    this.#config = config;
    const { token, defaultHeaders } = config;
    const base = (body: boolean) =>
      mergeHeaders(
        { accept: 'application/json' },
        body ? { 'content-type': 'application/json' } : undefined,
        token === undefined ? undefined : { authorization: `Bearer ${token}` },
        defaultHeaders,
      );
    this.#base = { bare: base(false), json: base(true) };
  }

  /** Sends a JSON request and resolves to the parsed JSON answer (`null` for an empty body). */
  request<T>(
    method: string,
    path: string,
    init: { query?: Query; body?: unknown } = {},
    options: RequestOptions = {},
  ): APIPromise<T> {
    const call = this.#call(method.toUpperCase(), path, init.query, init.body, options);
    return new APIPromise<T>(this.send(call), (raw) => readJson(raw) as Promise<T>);
  }

  /** `request` for a list route: a `PagePromise`, whose iteration follows `next_cursor`. */
  list<P extends ListPage<unknown>>(
    path: string,
    query: Query = {},
    options: RequestOptions = {},
  ): PagePromise<P> {
    const call = this.#call('GET', path, query, undefined, options);
    return new PagePromise<P>(
      this.send(call),
      (raw) => readJson(raw) as Promise<P>,
      (cursor) => this.list<P>(path, { ...query, after: cursor }, options),
    );
  }

  /**
   * Opens a resumable server-sent event stream; each event's `data` is parsed as JSON. With
   * `follow: false` in the query the end of the answer is the end of the backlog, not a
   * disconnect: only a connection that fails before it is reconnected, and only when
   * `options.maxRetries` says so, since a reconnect reads events committed after the call.
   * @param resume what a reconnect resumes from (`Stream`'s `resume`)
   */
  stream<T>(
    path: string,
    query: Query | undefined,
    options: StreamOptions = {},
    resume: Resume = 'last',
  ): Stream<T> {
    const backlogOnly = query?.follow === false;
    const maxRetries =
      checkMaxRetries(options.maxRetries, 'options') ?? (backlogOnly ? 0 : this.#config.maxRetries);
    return new Stream<T>({
      open: (lastEventId, signal) =>
        this.send({
          ...this.#call('GET', path, query, undefined, { ...options, maxRetries: 0 }),
          headers: mergeHeaders(options.headers, {
            accept: 'text/event-stream',
            'last-event-id': lastEventId || undefined,
          }),
          signal,
        }),
      parse: (event) =>
        parseOr(
          event.data,
          (cause) => new SvcError('invalid_event', 'an event of the stream is not JSON', { cause }),
        ) as T,
      maxRetries,
      idleTimeout: this.#config.timeout,
      signal: options.signal,
      after: options.after === undefined ? '' : String(options.after),
      endsWithBody: backlogOnly,
      resume,
    });
  }

  #call(
    method: string,
    path: string,
    query: Query | undefined,
    body: unknown,
    options: RequestOptions,
  ): Call {
    // RFC 9110 §9.1: a method is a token; anything else is no request at all, not a network error.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method)) {
      throw new TypeError(`method must be an HTTP method token; received ${show(method)}`);
    }
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw new TypeError(`path must be a string starting with "/"; received ${String(path)}`);
    }
    if (body !== undefined && SAFE_METHODS.has(method)) {
      throw new TypeError(`a ${method} request has no body; put parameters in the query string`);
    }
    const key = options.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || key === '')) {
      throw new TypeError(
        `options.idempotencyKey must be a non-empty string; received ${show(key)}`,
      );
    }
    return {
      method,
      path,
      query,
      body,
      headers:
        key === undefined
          ? options.headers
          : mergeHeaders(options.headers, { 'idempotency-key': key }),
      signal: options.signal,
      timeout: checkTimeout(options.timeout, 'options') ?? this.#config.timeout,
      maxRetries: checkMaxRetries(options.maxRetries, 'options') ?? this.#config.maxRetries,
    };
  }

  /** Runs the attempts of one call; resolves once a 2xx answer's headers are in. */
  async send(call: Call): Promise<RawResponse> {
    const url = this.#config.baseUrl + withQuery(call.path, call.query);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const safe = SAFE_METHODS.has(call.method);
    // The caller's headers win, and `null` removes a shared one. A copy even when it adds none:
    // a caller's `fetch` may add to what it is given.
    const base = body === undefined ? this.#base.bare : this.#base.json;
    // One key for every attempt of this call, so a retried create is applied once; a layer under
    // the caller's headers, so theirs wins and a `null` there sends none.
    const keyed = safe ? base : { ...base, 'idempotency-key': `svc-retry-${uuid4()}` };
    let headers = call.headers === undefined ? { ...keyed } : mergeHeaders(keyed, call.headers);

    for (let retry = 0; ; retry++) {
      if (call.signal?.aborted) throw new APIUserAbortError();
      if (retry > 0) headers = { ...headers, 'svc-retry-count': String(retry) };
      const attempt = new Attempt(call);
      let response: Response;
      try {
        response = await this.#config.fetch(url, {
          method: call.method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: attempt.signal,
        });
      } catch (cause) {
        attempt.release();
        const error = attempt.failure(cause);
        if (error instanceof APIUserAbortError || retry >= call.maxRetries) throw error;
        await wait(retryDelay(retry), call.signal);
        continue;
      }
      const raw = new Answer(response, attempt);
      if (response.ok) return raw;
      if (retry < call.maxRetries && shouldRetry(response.status, response.headers)) {
        attempt.release();
        await response.body?.cancel().catch(() => {});
        await wait(retryDelay(retry, response.headers), call.signal);
        continue;
      }
      const text = await readBody(raw);
      throw APIError.generate(response.status, parseLenient(text), response.headers);
    }
  }
}

/** The answer of one attempt, as `RawResponse`: a 2xx to read, or an error's body. */
class Answer implements RawResponse {
  readonly response: Response;
  readonly #attempt: Attempt;

  constructor(response: Response, attempt: Attempt) {
    this.response = response;
    this.#attempt = attempt;
  }

  /** Read when asked for (`withResponse`): most calls never look. */
  get requestId(): string | null {
    return this.response.headers.get(REQUEST_ID_HEADER);
  }

  endTimeout(): void {
    this.#attempt.endTimeout();
  }

  release(): void {
    this.#attempt.release();
  }

  fail(cause: unknown): APIError<undefined> {
    return this.#attempt.failure(cause);
  }
}

/** The signal of one attempt: the caller's signal plus this attempt's timeout. */
class Attempt {
  readonly #controller = new AbortController();
  readonly #unlink: () => void;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #call: Call;
  #timedOut = false;

  constructor(call: Call) {
    this.#call = call;
    this.#unlink = linkAbort(call.signal, this.#controller);
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort();
    }, call.timeout);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  endTimeout(): void {
    clearTimeout(this.#timer);
  }

  release(): void {
    clearTimeout(this.#timer);
    this.#unlink();
  }

  /** Names what ended the attempt: the caller, the timeout, or the network. */
  failure(cause: unknown): APIError<undefined> {
    if (this.#call.signal?.aborted) return new APIUserAbortError();
    if (this.#timedOut) return new APIConnectionTimeoutError(this.#call.timeout);
    return new APIConnectionError({ message: `Connection error: ${describe(cause)}`, cause });
  }
}

async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch {
    throw new APIUserAbortError();
  }
}

async function readBody(raw: RawResponse): Promise<string> {
  try {
    return await raw.response.text();
  } catch (cause) {
    throw raw.fail(cause);
  } finally {
    raw.release();
  }
}

/** A 2xx body: JSON when labelled so, else text; `null` when empty (e.g. 204). */
function readJson(raw: RawResponse): Promise<unknown> {
  return readBody(raw).then((text) => {
    if (text === '') return null;
    if (!isJson(raw.response.headers)) return text;
    const { status, headers } = raw.response;
    return parseOr(text, (cause) => {
      const message = 'the answer is labelled JSON but is not';
      return new APIError(status, text, headers, { code: 'invalid_response', message, cause });
    });
  });
}

/**
 * JSON the daemon always sends (a 2xx body labelled so, an event's `data`); anything else (a
 * broken proxy) is thrown as `fail` makes it, so every failure is a `SvcError` with a code.
 */
function parseOr(text: string, fail: (cause: unknown) => SvcError): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw fail(cause);
  }
}

function parseLenient(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isJson(headers: Headers): boolean {
  return /\bjson\b/i.test(headers.get('content-type') ?? '');
}

/** `path` with `query` added to the query it may hold already (a raw call's `/v1/x?a=1`). */
function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  if (text === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
}

/** The innermost message: undici's "fetch failed" hides the useful "connect ECONNREFUSED …". */
function describe(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
