/**
 * Process exit codes of `svc`. `notRunning` lets scripts tell "daemon down" from a failure;
 * `needsAction`, a wait that stopped because the node cannot end unless someone acts.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, notRunning: 3, needsAction: 4 } as const;

/** An error the CLI reports as one line on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.error, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Bad arguments: caught before anything is sent to the daemon (exit 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}
