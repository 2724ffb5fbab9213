import { APIConnectionError, APIError, APIUserAbortError } from '@svc/client';
import { CliError, EXIT } from '../errors.ts';

export interface Failure {
  line: string;
  exitCode: number;
}

/**
 * Every failure becomes ONE stderr line, `svc: <message> (<code>, request <id>)` for an answer of
 * the daemon, so a script can grep it and a person can quote the request id from the daemon log.
 */
export function describeFailure(err: unknown, env: NodeJS.ProcessEnv = {}): Failure {
  if (err instanceof CliError)
    return { line: `svc: ${oneLine(err.message)}`, exitCode: err.exitCode };
  if (err instanceof APIError && err.status !== undefined) {
    const detail = [err.code, err.requestId && `request ${err.requestId}`]
      .filter(Boolean)
      .join(', ');
    return { line: `svc: ${oneLine(apiMessage(err))} (${detail})`, exitCode: EXIT.error };
  }
  if (err instanceof APIUserAbortError) return { line: 'svc: aborted', exitCode: EXIT.error };
  if (err instanceof APIConnectionError) {
    const code = causeCode(err);
    const reason = code ?? oneLine(err.message);
    // A remote daemon (SVC_BASE_URL) is not started from here: name where svc looked.
    const remote = env.SVC_BASE_URL || undefined;
    const hint =
      remote === undefined
        ? 'is it running? Start it with: svc daemon start'
        : `is SVC_BASE_URL (${remote}) right, and its TCP listener on?`;
    return {
      line: `svc: cannot reach the svc daemon (${reason}); ${hint}`,
      // Nothing listens on the socket (a daemon killed left it behind) or it is gone: the daemon
      // is not running, as when there was no socket to begin with.
      exitCode: code === 'ECONNREFUSED' || code === 'ENOENT' ? EXIT.notRunning : EXIT.error,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { line: `svc: ${oneLine(message)}`, exitCode: EXIT.error };
}

/** The envelope's own message; the error's `message` carries the status and code as a prefix. */
function apiMessage(err: APIError): string {
  const message = (err.error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : err.message;
}

function causeCode(err: Error): string | undefined {
  let cause: unknown = err.cause;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = cause.cause;
  }
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
