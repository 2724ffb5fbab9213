/** `POST /v1/bash`: one command in a required absolute working directory. */
import { z } from 'zod';
import { BASH_TIMEOUT_MAX_MS } from '../limits.ts';
import { absolutePathSchema, ENV_VALUE_MAX_LENGTH, processText } from './common.ts';

export const bashBodySchema = z.strictObject({
  command: processText(100_000).min(1),
  cwd: absolutePathSchema,
  timeout_ms: z.number().int().min(1).max(BASH_TIMEOUT_MAX_MS).optional(),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), processText(ENV_VALUE_MAX_LENGTH))
    .optional()
    .describe('added to the environment of the command'),
});
export type BashBody = z.output<typeof bashBodySchema>;

/** A non-zero exit is a value, not an error. */
export const bashResultSchema = z.object({
  exit_code: z.number().int().nullable().describe('null when killed by a signal'),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean().describe('stdout or stderr was cut at the output limit'),
  duration_ms: z.number().nonnegative(),
  sandbox: z
    .enum(['bubblewrap', 'off'])
    .nullable()
    .describe(
      "bubblewrap: confined to the caller's scopes; off: unconfined, the daemon runs with --sandbox off; null: the owner's own command, unconfined by design",
    ),
  warning: z.string().optional().describe('said when a command that should be confined was not'),
});
/** A non-zero exit is a value: `exit_code` (null when killed), `signal`, `stdout`, `stderr`. */
export type BashResult = z.output<typeof bashResultSchema>;
