import { homePaths, resolveHome } from '@svc/protocol/home';
import { listCovers } from '@svc/protocol/scopes';
import { connect } from './context.ts';

/**
 * SPEC "Scope vocabulary": the `svc human` commands are hidden from a run without `svc:act`, the
 * `svc cron` commands without `svc:schedule`. Only a caller acting as a token (`SVC_TOKEN`) can
 * lack a scope; the owner sees every command.
 */
const GATED = [
  ['human', 'svc:act'],
  ['cron', 'svc:schedule'],
] as const;

/** The top-level commands the help leaves out for the calling token; asks the daemon only for help. */
export async function hiddenCommands(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<ReadonlySet<string>> {
  if (!env.SVC_TOKEN || !asksForHelp(args)) return new Set();
  try {
    const home = resolveHome(homeArgument(args) ?? (env.SVC_HOME || undefined));
    const client = await connect(home, homePaths(home), env);
    const grant = await client.grant.get({ timeout: 2_000, maxRetries: 0 });
    return new Set(
      GATED.filter(([, scope]) => !listCovers(grant.scopes, scope)).map(([name]) => name),
    );
  } catch {
    // The help must print even when the daemon is away or refuses the token.
    return new Set();
  }
}

/**
 * The subcommand `args` name: the first argument that is not a global option (`--home DIR`,
 * `--home=DIR`, `--json`), which may come before it (docs/cli.md "Global options"); undefined for
 * a bare `svc`.
 */
export function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--home') i++;
    else if (arg !== '--json' && !arg?.startsWith('--home=')) return arg;
  }
  return undefined;
}

/** A bare `svc` (it prints the help), `svc help …`, or `-h`/`--help` before any `--`. */
function asksForHelp(args: readonly string[]): boolean {
  const word = commandWord(args);
  if (word === undefined || word === 'help') return true;
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  return options.includes('-h') || options.includes('--help');
}

function homeArgument(args: readonly string[]): string | undefined {
  const at = args.indexOf('--home');
  if (at >= 0) return args[at + 1];
  return args.find((a) => a.startsWith('--home='))?.slice('--home='.length);
}
