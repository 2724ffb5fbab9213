import type { APIPromise } from './core/api-promise.ts';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  SvcError,
  UnprocessableEntityError,
} from './core/errors.ts';
import type { Fetch, RequestOptions } from './core/request-options.ts';
import { type Query, Transport } from './core/transport.ts';
import { readEnv } from './internal/env.ts';
import type { HeadersLike } from './internal/headers.ts';
import { checkMaxRetries, checkTimeout, show } from './internal/options.ts';
import { Attachments } from './resources/attachments.ts';
import { Auth } from './resources/auth.ts';
import { Bash } from './resources/bash.ts';
import { Canvas } from './resources/canvas.ts';
import { Crons } from './resources/crons.ts';
import { CustomObjects } from './resources/custom-objects.ts';
import { Events } from './resources/events.ts';
import { Files } from './resources/files.ts';
import { Grant } from './resources/grant.ts';
import { Health } from './resources/health.ts';
import { Human } from './resources/human.ts';
import { Memory } from './resources/memory.ts';
import { Models } from './resources/models.ts';
import { Nodes } from './resources/nodes.ts';
import { Profiles } from './resources/profiles.ts';
import { Providers } from './resources/providers.ts';
import { Questions } from './resources/questions.ts';
import { Runs } from './resources/runs.ts';
import { Shares } from './resources/shares.ts';
import { System } from './resources/system.ts';
import { Uploads } from './resources/uploads.ts';

export interface ClientOptions {
  /** The daemon's URL, e.g. the `base_url` of `svc sys connect`. Default: `SVC_BASE_URL`. */
  baseUrl?: string;
  /** Bearer token. Default: `SVC_TOKEN`. */
  token?: string;
  /** Milliseconds per attempt. Default 60 000. */
  timeout?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** A WHATWG `fetch`. Default: the global one. */
  fetch?: Fetch;
  /** Headers sent with every request. */
  defaultHeaders?: HeadersLike;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;

/** The client of the svc daemon's `/v1` API. */
export class Svc {
  // The error classes on the client too, as the Stainless SDKs have them (`Svc.NotFoundError`),
  // for code that imports only the default export.
  static readonly SvcError = SvcError;
  static readonly APIError = APIError;
  static readonly APIConnectionError = APIConnectionError;
  static readonly APIConnectionTimeoutError = APIConnectionTimeoutError;
  static readonly APIUserAbortError = APIUserAbortError;
  static readonly BadRequestError = BadRequestError;
  static readonly AuthenticationError = AuthenticationError;
  static readonly PermissionDeniedError = PermissionDeniedError;
  static readonly NotFoundError = NotFoundError;
  static readonly ConflictError = ConflictError;
  static readonly PayloadTooLargeError = PayloadTooLargeError;
  static readonly UnprocessableEntityError = UnprocessableEntityError;
  static readonly RateLimitError = RateLimitError;
  static readonly InternalServerError = InternalServerError;

  readonly baseUrl: string;
  readonly timeout: number;
  readonly maxRetries: number;

  readonly system: System;
  readonly auth: Auth;
  readonly grant: Grant;
  readonly health: Health;
  readonly bash: Bash;
  readonly files: Files;
  readonly events: Events;
  readonly models: Models;
  readonly profiles: Profiles;
  readonly nodes: Nodes;
  readonly canvas: Canvas;
  readonly runs: Runs;
  readonly crons: Crons;
  readonly customObjects: CustomObjects;
  readonly human: Human;
  readonly memory: Memory;
  readonly providers: Providers;
  readonly uploads: Uploads;
  readonly attachments: Attachments;
  readonly shares: Shares;
  readonly questions: Questions;

  readonly #transport: Transport;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? readEnv('SVC_BASE_URL'));
    this.timeout = checkTimeout(options.timeout, 'options') ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = checkMaxRetries(options.maxRetries, 'options') ?? DEFAULT_MAX_RETRIES;
    const token = options.token ?? readEnv('SVC_TOKEN');
    if (token !== undefined && typeof token !== 'string') {
      throw new TypeError(`options.token must be a string; received ${typeof token}`);
    }
    const fetch = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof fetch !== 'function') {
      throw new TypeError('options.fetch must be a function (this runtime has no global fetch)');
    }
    this.#transport = new Transport({
      baseUrl: this.baseUrl,
      token,
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      fetch,
      defaultHeaders: options.defaultHeaders,
    });
    this.system = new System(this.#transport);
    this.auth = new Auth(this.#transport);
    this.grant = new Grant(this.#transport);
    this.health = new Health(this.#transport);
    this.bash = new Bash(this.#transport);
    this.files = new Files(this.#transport);
    this.events = new Events(this.#transport);
    this.models = new Models(this.#transport);
    this.profiles = new Profiles(this.#transport);
    this.nodes = new Nodes(this.#transport);
    this.canvas = new Canvas(this.#transport, { nodes: this.nodes, system: this.system });
    this.runs = new Runs(this.#transport);
    this.crons = new Crons(this.#transport);
    this.customObjects = new CustomObjects(this.#transport);
    this.human = new Human(this.#transport);
    this.memory = new Memory(this.#transport);
    this.providers = new Providers(this.#transport);
    this.uploads = new Uploads(this.#transport);
    this.attachments = new Attachments(this.#transport);
    this.shares = new Shares(this.#transport);
    this.questions = new Questions(this.#transport);
  }

  /**
   * Any route, untyped: the way to excluded routes and routes newer than this client. Same
   * token, retries, idempotency key and error classes as the typed methods; the answer is the
   * parsed JSON body. Put query parameters in `path`, or pass one object, as the Stainless SDKs'
   * `client.request({ method, path, query?, body?, ...options })` takes it.
   */
  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): APIPromise<T>;
  request<T = unknown>(request: RawRequest): APIPromise<T>;
  request<T = unknown>(
    method: string | RawRequest,
    path?: string,
    body?: unknown,
    options?: RequestOptions,
  ): APIPromise<T> {
    if (typeof method === 'object' && method !== null) {
      const { method: verb, path: at, query, body: sent, ...rest } = method;
      if (typeof verb !== 'string') {
        throw new TypeError(`request.method must be a string; received ${show(verb)}`);
      }
      const init = {
        ...(query !== undefined && { query }),
        ...(sent !== undefined && { body: sent }),
      };
      return this.#transport.request(verb, at, init, rest);
    }
    return this.#transport.request(method, path!, body === undefined ? {} : { body }, options);
  }

  /** `client.request` for a GET, as `client.get(path, { query?, ...options })`. */
  get<T = unknown>(path: string, options: Omit<VerbOptions, 'body'> = {}): APIPromise<T> {
    return this.request<T>({ ...options, method: 'GET', path });
  }

  /** `client.request` for a POST, as `client.post(path, { body?, query?, ...options })`. */
  post<T = unknown>(path: string, options: VerbOptions = {}): APIPromise<T> {
    return this.request<T>({ ...options, method: 'POST', path });
  }

  /** `client.request` for a PUT. */
  put<T = unknown>(path: string, options: VerbOptions = {}): APIPromise<T> {
    return this.request<T>({ ...options, method: 'PUT', path });
  }

  /** `client.request` for a PATCH. */
  patch<T = unknown>(path: string, options: VerbOptions = {}): APIPromise<T> {
    return this.request<T>({ ...options, method: 'PATCH', path });
  }

  /** `client.request` for a DELETE. */
  delete<T = unknown>(path: string, options: VerbOptions = {}): APIPromise<T> {
    return this.request<T>({ ...options, method: 'DELETE', path });
  }
}

/** The one-object form of `client.request`. */
export interface RawRequest extends RequestOptions {
  method: string;
  path: string;
  query?: Query;
  body?: unknown;
}

/** The options of `client.get`, `post`, `put`, `patch` and `delete`. */
export type VerbOptions = Omit<RawRequest, 'method' | 'path'>;

function normalizeBaseUrl(value: string | undefined): string {
  if (value === undefined) {
    throw new SvcError(
      'missing_base_url',
      'new Svc(): no baseUrl given and SVC_BASE_URL is not set. For the local daemon use ' +
        "createLocalClient() from '@svc/client/node'; for a remote one run `svc sys connect` " +
        'and pass its base_url and token (or set SVC_BASE_URL and SVC_TOKEN).',
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new TypeError(`options.baseUrl must be an http(s) URL; received ${show(value)}`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}
