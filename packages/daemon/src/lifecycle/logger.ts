import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, pino } from 'pino';

export type { Logger };

/** Writes the log line of one answered request. */
export type RequestLog = (line: {
  request_id: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  listener: 'unix' | 'tcp';
}) => void;

/** Lines are written in batches of this many bytes… */
const BATCH_BYTES = 16_384;
/** …or this long after the first line of a batch, so a quiet daemon's log is current too. */
export const FLUSH_MS = 100;

/**
 * JSON lines to `logs/daemon.log`. Secrets never reach a log line: requests are logged by method,
 * path and status only, and `redact` blanks any authorization or token field a future caller might
 * pass by mistake.
 *
 * Lines are buffered in memory and written in batches of `BATCH_BYTES`: one write(2) per request
 * line cost a fifth of the request path's CPU. The batch is written synchronously, because an
 * asynchronous write (a thread-pool round trip) costs several times the write itself. Buffered
 * lines reach the file within `FLUSH_MS`, on `close()`, and when the process exits, be it by
 * `process.exit()` or by an uncaught exception (logged at `fatal` first). Only a `kill -9` can
 * lose lines: those of the last `FLUSH_MS`.
 */
export function createLogger(
  file: string,
  level = 'info',
): { logger: Logger; request: RequestLog; close(): void } {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, 'a', 0o600);
  const destination = batchedFile(fd);
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          'token',
          '*.token',
          'secret',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
  // The line pino writes for `logger.info({request_id, …}, 'request')`, byte for byte, built
  // without pino's per-call work (bindings, serializers, redaction): it is written for every
  // request, and its fields are all ours (an id of safe characters, a method, a path, numbers).
  const pid = process.pid;
  const request: RequestLog = (line) => {
    if (!logger.isLevelEnabled('info')) return;
    destination.write(
      `{"level":30,"time":${Date.now()},"pid":${pid},"request_id":${JSON.stringify(line.request_id)},"method":${JSON.stringify(line.method)},"path":${JSON.stringify(line.path)},"status":${line.status},"ms":${line.ms},"listener":"${line.listener}","msg":"request"}\n`,
    );
  };
  const onExit = () => destination.flush();
  // A monitor does not change how the crash proceeds: Node still prints the error and exits 1.
  const onCrash = (error: Error) => {
    logger.fatal({ err: error }, 'uncaught exception; exiting');
    onExit();
  };
  process.on('exit', onExit);
  process.on('uncaughtExceptionMonitor', onCrash);
  return {
    logger,
    request,
    close() {
      if (destination.closed) return;
      process.off('exit', onExit);
      process.off('uncaughtExceptionMonitor', onCrash);
      destination.close();
    },
  };
}

/**
 * Lines kept in memory and appended to `fd` with one write(2) per batch: at `BATCH_BYTES`
 * (counted in UTF-16 units, near enough for a threshold), `FLUSH_MS` after the first line of a
 * batch, or on `flush()`. A line written after `close()` has nowhere to go and is dropped.
 */
function batchedFile(fd: number) {
  let lines: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0 || closed) return;
    const text = lines.join('');
    lines = [];
    size = 0;
    writeSync(fd, text);
  };
  return {
    write(line: string): boolean {
      if (closed) return false;
      lines.push(line);
      size += line.length;
      if (size >= BATCH_BYTES) flush();
      else timer ??= setTimeout(flush, FLUSH_MS).unref();
      return true;
    },
    flush,
    get closed() {
      return closed;
    },
    close() {
      flush();
      closed = true;
      closeSync(fd);
    },
  };
}
