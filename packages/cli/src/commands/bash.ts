import { constants } from 'node:os';
import { resolve } from 'node:path';
import type { BashResult, BashRunParams } from '@svc/client';
import { BASH_TIMEOUT_MAX_MS } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { UsageError } from '../errors.ts';
import { parseDuration } from '../parse/duration.ts';
import { commandLine } from '../parse/shell.ts';

export function registerBash(program: Command, runtime: Runtime): void {
  program
    .command('bash')
    .description("run one command through the daemon and exit with the command's exit code")
    .usage('[options] -- <command...>')
    .argument('<command...>', "one shell string ('ls | wc -l') or words to run as given")
    .option('--cwd <dir>', 'working directory, made absolute (default: the current directory)')
    .option(
      '--timeout <duration>',
      'kill the command after this long, e.g. 30s, 5m, at most 10m (daemon default: 60s)',
    )
    .option('-e, --env <name=value...>', 'add variables to the command environment')
    .action(action(runtime, bash));
}

async function bash(
  ctx: Context,
  words: string[],
  opts: { cwd?: string; timeout?: string; env?: string[] },
) {
  const params: BashRunParams = {
    command: commandLine(words),
    cwd: resolve(opts.cwd ?? process.cwd()),
  };
  if (opts.timeout !== undefined)
    params.timeout_ms = parseDuration(opts.timeout, '--timeout', BASH_TIMEOUT_MAX_MS / 1000) * 1000;
  if (opts.env !== undefined) params.env = parseEnv(opts.env);
  const client = await ctx.client();
  // The client waits past the command's own bound; a command is not idempotent: never run it
  // twice because an answer was slow.
  const result = await client.bash.run(params, { maxRetries: 0 });
  if (ctx.out.json) {
    ctx.out.result(result, () => '');
  } else {
    ctx.io.stdout(result.stdout);
    ctx.io.stderr(result.stderr);
    if (result.truncated) ctx.out.note('svc: output truncated at the daemon limit');
  }
  return exitCodeOf(result);
}

/** The command's own exit code; a signal maps to 128 + its number, as a shell reports it. */
export function exitCodeOf(result: Pick<BashResult, 'exit_code' | 'signal'>): number {
  if (result.exit_code !== null) return result.exit_code;
  const number = result.signal ? constants.signals[result.signal as NodeJS.Signals] : undefined;
  return number === undefined ? 1 : 128 + number;
}

function parseEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new UsageError(`--env must be NAME=value; received '${pair}'`);
    }
    env[name] = pair.slice(eq + 1);
  }
  return env;
}
