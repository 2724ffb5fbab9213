import { REQUEST_ID_HEADER } from '@svc/protocol';

/** Root of every error this package throws, with a stable string `code`. */
export class SvcError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The daemon's error body: `{"error": {code, message, field?, received?, request_id}}`. */
export interface ErrorBody {
  code: string;
  message: string;
  field?: string;
  received?: unknown;
  request_id?: string;
}

/**
 * A failed call. With a `status` the daemon (or something in front of it) answered; without one
 * the request never got an answer (connection error, timeout, abort: the subclasses below).
 */
export class APIError<TStatus extends number | undefined = number | undefined> extends SvcError {
  readonly status: TStatus;
  /** The envelope's `field` (the offending input, e.g. a JSON pointer or the scope wanted). */
  readonly field: string | undefined;
  /** The envelope's `received` (what the daemon got, e.g. the token's scope list). */
  readonly received: unknown;
  /** From the envelope's `request_id`, else the `Svc-Request-Id` response header. */
  readonly requestId: string | undefined;
  /** `requestId` under the Stainless SDKs' spelling. */
  get requestID(): string | undefined {
    return this.requestId;
  }
  readonly headers: Headers | undefined;
  /** The envelope's inner `error` object, or the raw body when it was not an envelope. */
  readonly error: unknown;

  constructor(
    status: TStatus,
    body: unknown,
    headers: Headers | undefined,
    fallback?: { code: string; message: string; cause?: unknown },
  ) {
    const envelope = asErrorBody(body);
    const code = envelope?.code ?? fallback?.code ?? 'http_error';
    super(code, makeMessage(status, envelope, body, fallback?.message), {
      cause: fallback?.cause,
    });
    this.status = status;
    this.headers = headers;
    this.error = envelope ?? body;
    this.field = envelope?.field;
    this.received = envelope?.received;
    this.requestId = envelope?.request_id ?? headers?.get(REQUEST_ID_HEADER) ?? undefined;
  }

  /** The error class for an HTTP status, as the Stainless SDKs map it. */
  static generate(status: number, body: unknown, headers: Headers): APIError<number> {
    const ErrorClass = STATUS_CLASSES[status] ?? (status >= 500 ? InternalServerError : APIError);
    return new ErrorClass(status, body, headers);
  }
}

export class BadRequestError extends APIError<number> {}
export class AuthenticationError extends APIError<number> {}
export class PermissionDeniedError extends APIError<number> {}
export class NotFoundError extends APIError<number> {}
export class ConflictError extends APIError<number> {}
export class PayloadTooLargeError extends APIError<number> {}
export class UnprocessableEntityError extends APIError<number> {}
export class RateLimitError extends APIError<number> {}
export class InternalServerError extends APIError<number> {}

const STATUS_CLASSES: Record<number, typeof APIError<number>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** No answer arrived: the connection failed or broke. The underlying error is the `cause`. */
export class APIConnectionError extends APIError<undefined> {
  constructor(options: { message?: string; cause?: unknown; code?: string } = {}) {
    super(undefined, undefined, undefined, {
      code: options.code ?? 'connection_error',
      message: options.message ?? 'Connection error.',
      cause: options.cause,
    });
  }
}

/** One attempt outlived the `timeout` option (and no retry was left). */
export class APIConnectionTimeoutError extends APIConnectionError {
  constructor(timeoutMs: number) {
    super({ code: 'connection_timeout', message: `Request timed out after ${timeoutMs} ms.` });
  }
}

/** The caller's `signal` aborted the call; it is never retried. */
export class APIUserAbortError extends APIError<undefined> {
  constructor() {
    super(undefined, undefined, undefined, { code: 'aborted', message: 'Request was aborted.' });
  }
}

function asErrorBody(body: unknown): ErrorBody | undefined {
  const inner = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const { code, message } = inner as Partial<ErrorBody>;
  return typeof code === 'string' && typeof message === 'string' ? (inner as ErrorBody) : undefined;
}

function makeMessage(
  status: number | undefined,
  envelope: ErrorBody | undefined,
  body: unknown,
  fallback: string | undefined,
): string {
  if (envelope) return `${status} ${envelope.code}: ${envelope.message}`;
  if (status === undefined) return fallback ?? 'Request failed.';
  if (body === undefined || body === '') return `${status} status code (no body)`;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return `${status} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}
