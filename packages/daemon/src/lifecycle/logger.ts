import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, pino } from 'pino';

export type { Logger };

/** Writes the log line of one answered request at `level` (when the log's level lets it through). */
export type RequestLog = (
  line: {
    request_id: string;
    method: string;
    path: string;
    status: number;
    ms: number;
    listener: 'unix' | 'tcp';
  },
  level: 'info' | 'debug',
) => void;

/** Lines are written in batches of at most this many bytes… */
const BATCH_BYTES = 65_536;
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
  // The line pino writes for `logger[level]({request_id, …}, 'request')`, byte for byte, built
  // without pino's per-call work (bindings, serializers, redaction): it may be written for every
  // request, and its fields are all ours (an id of safe characters, a method, a path, numbers).
  const pid = process.pid;
  const request: RequestLog = (line, level) => {
    if (!logger.isLevelEnabled(level)) return;
    destination.write(
      `{"level":${pino.levels.values[level]},"time":${Date.now()},"pid":${pid},"request_id":${JSON.stringify(line.request_id)},"method":${JSON.stringify(line.method)},"path":${JSON.stringify(line.path)},"status":${line.status},"ms":${line.ms},"listener":"${line.listener}","msg":"request"}\n`,
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
 * Lines copied into one buffer and appended to `fd` with one write(2) per batch: when the next
 * line might not fit in `BATCH_BYTES`, `FLUSH_MS` after the first line of a batch, or on
 * `flush()`. The buffer is allocated once: joining the lines and encoding the batch anew for
 * every write cost more than the write. A line written after `close()` has nowhere to go and is
 * dropped.
 */
function batchedFile(fd: number) {
  const batch = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (used === 0 || closed) return;
    writeAll(fd, batch.subarray(0, used));
    used = 0;
  };
  return {
    write(line: string): boolean {
      if (closed) return false;
      // A UTF-16 unit takes at most 3 bytes in UTF-8 (a surrogate pair, 4 for 2 units).
      if (used + line.length * 3 > BATCH_BYTES) {
        flush();
        if (line.length * 3 > BATCH_BYTES) {
          writeAll(fd, Buffer.from(line));
          return true;
        }
      }
      used += batch.write(line, used);
      timer ??= setTimeout(flush, FLUSH_MS).unref();
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

/** write(2) until all of `bytes` is written: a regular file may take less than asked. */
function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}
