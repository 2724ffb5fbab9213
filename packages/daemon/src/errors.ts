import { ERROR_STATUS, type ErrorCode } from '@svc/protocol';

/**
 * The daemon's one error base class. `code` is a stable string: a lifecycle code
 * (`daemon_running`, `socket_path_too_long`, `spawn_timeout`, …) for failures of starting and
 * stopping, which the CLI prints as one line, or an HTTP `ErrorCode` (see `ApiError`).
 */
export class DaemonError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DaemonError';
    this.code = code;
  }
}

/** A failure answered on the wire as an error envelope with the status of its code. */
export class ApiError extends DaemonError {
  declare readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly received: unknown;
  readonly hasReceived: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { field?: string; received?: unknown } = {},
  ) {
    super(code, message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    this.field = extra.field;
    this.hasReceived = 'received' in extra;
    this.received = extra.received;
  }
}
