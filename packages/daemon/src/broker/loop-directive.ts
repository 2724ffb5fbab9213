/**
 * How the agent loop ends when the daemon's directive, an abort or a fault stops it: the exit it
 * reports and the fault it records.
 */
import { ModelError } from '../model-access/model-error.ts';
import type { LoopExit } from './loop-exit.ts';
import type { Directive, FaultReport } from './port.ts';

export function reasonOf(directive: Directive): string {
  return directive.reason ?? `the daemon asked the broker to ${directive.action}`;
}

export function directiveExit(directive: Directive): LoopExit {
  return directive.action === 'park'
    ? { kind: 'budget', reason: reasonOf(directive) }
    : { kind: 'aborted', reason: reasonOf(directive) };
}

export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'the node was stopped';
}

export function abortedExit(signal: AbortSignal): LoopExit {
  return { kind: 'aborted', reason: abortReason(signal) };
}

/** Fault codes in the protocol's vocabulary; a model error that retrying cannot fix is fatal. */
export function faultReport(error: unknown): FaultReport {
  if (error instanceof ModelError) {
    const code =
      error.code === 'auth'
        ? 'auth_failed'
        : error.code === 'script_exhausted'
          ? 'script_exhausted'
          : `provider_${error.code}`;
    return { code, message: error.message, fatal: !error.retryable };
  }
  // A relaunch from the recorded history may well get past a broken connection.
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'broker_error', message, fatal: false };
}
