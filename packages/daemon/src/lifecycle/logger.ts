import { mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, pino } from 'pino';

export type { Logger };

/** Lines are written in batches of this many bytes… */
const BATCH_BYTES = 4096;
/** …or this long after the first line of a batch, so a quiet daemon's log is current too. */
const FLUSH_MS = 100;

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
export function createLogger(file: string, level = 'info'): { logger: Logger; close(): void } {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, 'a', 0o600);
  const destination = pino.destination({ dest: fd, sync: true, minLength: BATCH_BYTES });
  let timer: NodeJS.Timeout | undefined;
  let open = true;
  const flush = () => {
    timer = undefined;
    // A line logged after `close()` has nowhere to go.
    if (open) destination.flush();
  };
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
      hooks: {
        streamWrite(line) {
          timer ??= setTimeout(flush, FLUSH_MS).unref();
          return line;
        },
      },
    },
    destination,
  );
  const onExit = () => destination.flushSync();
  // A monitor does not change how the crash proceeds: Node still prints the error and exits 1.
  const onCrash = (error: Error) => {
    logger.fatal({ err: error }, 'uncaught exception; exiting');
    onExit();
  };
  process.on('exit', onExit);
  process.on('uncaughtExceptionMonitor', onCrash);
  return {
    logger,
    close() {
      if (!open) return;
      open = false;
      process.off('exit', onExit);
      process.off('uncaughtExceptionMonitor', onCrash);
      clearTimeout(timer);
      onExit();
      destination.end();
    },
  };
}
