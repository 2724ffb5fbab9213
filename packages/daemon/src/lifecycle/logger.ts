import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * JSON lines to `logs/daemon.log`. Secrets never reach a log line: requests are logged by method,
 * path and status only, and `redact` blanks any authorization or token field a future caller might
 * pass by mistake.
 */
export function createLogger(file: string, level = 'info'): { logger: Logger; close(): void } {
  // Synchronous writes: one write(2) per line is cheap at a local daemon's request rate, and the
  // lines before a crash or `kill -9` are on disk when someone reads the log to find out why.
  const destination = pino.destination({ dest: file, mkdir: true, sync: true });
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
  return {
    logger,
    close() {
      destination.end();
    },
  };
}
