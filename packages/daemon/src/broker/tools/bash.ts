/**
 * `bash`: one shell command, through the daemon's own `runBash` (its own process group, so an
 * abort kills everything the command started). A non-zero exit is a result the model reads, not
 * a tool error.
 */
import { z } from 'zod';
import { BASH_MAX_TIMEOUT_MS, runBash } from '../../services/bash.ts';
import { defineTool } from './tool.ts';

export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command (/bin/sh -c). Returns exit_code, signal, stdout, stderr (each capped ' +
    'at 1 MiB, `truncated` set when cut) and duration_ms.',
  input: z.object({
    command: z.string().min(1).describe('the command line'),
    cwd: z
      .string()
      .startsWith('/')
      .optional()
      .describe('absolute working directory (default: your working directory)'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(BASH_MAX_TIMEOUT_MS)
      .optional()
      .describe('kill the command after this long (default 60000)'),
  }),
  async run({ command, cwd, timeout_ms }, { cwd: home, signal }) {
    return { output: await runBash({ command, cwd: cwd ?? home, timeout_ms }, signal) };
  },
});
