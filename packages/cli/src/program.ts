import { Command, CommanderError, Help } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import type { Runtime } from './context.ts';
import { EXIT } from './errors.ts';
import { groupCommands } from './help-groups.ts';
import { commandWord, hiddenCommands } from './help-visibility.ts';
import { type Register, registersFor } from './lazy-commands.ts';
import { describeFailure } from './output/error-line.ts';
import { type Io, processIo } from './output/printer.ts';
import { addVerbAliases } from './verb-aliases.ts';

/**
 * The `svc` command tree with the top-level commands `registers` adds (`registersFor` picks them
 * for an argv). Settings are made before subcommands exist so they inherit them. `hidden` names
 * top-level commands the help leaves out (they still run; the daemon decides).
 */
export function buildProgram(
  runtime: Runtime,
  registers: readonly Register[],
  hidden: ReadonlySet<string> = new Set(),
): Command {
  const program = new Command('svc')
    .description("svc: a local control plane for a person's AI agents")
    .version(pkg.version, '-V, --version', 'print the svc version')
    .option('--home <dir>', 'the svc home directory (default: $SVC_HOME, else ~/.svc)')
    .option('--json', 'print machine-readable JSON instead of tables')
    .option('--jq <expr>', "print only what a jq filter picks, e.g. '.data[] | {id, state}'")
    .helpOption('-h, --help', 'show help for a command')
    .configureHelp({
      showGlobalOptions: true,
      visibleCommands(this: Help, cmd: Command) {
        const shown = Help.prototype.visibleCommands.call(this, cmd);
        return cmd.parent === null ? shown.filter((c) => !hidden.has(c.name())) : shown;
      },
    })
    .configureOutput({
      writeOut: (text) => runtime.io.stdout(text),
      writeErr: (text) => runtime.io.stderr(text),
      // run() prints commander's parse errors itself, as the one `svc: …` line.
      outputError: () => {},
    })
    .showSuggestionAfterError(true)
    .exitOverride();

  for (const register of registers) register(program, runtime);
  groupCommands(program);
  addVerbAliases(program);
  return program;
}

/** Runs `svc` on `argv` (as `process.argv`: node, script, args…) and resolves its exit code. */
export async function run(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const runtime: Runtime = { io, exitCode: EXIT.ok };
  try {
    const [registers, hidden] = await Promise.all([
      registersFor(argv.slice(2)),
      hiddenCommands(argv.slice(2), io.env),
    ]);
    await buildProgram(runtime, registers, hidden).parseAsync([...argv]);
    return runtime.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return commanderExit(err, io, commandWord(argv.slice(2)) === 'help');
    }
    const failure = describeFailure(err, io.env);
    io.stderr(`${failure.line}\n`);
    if (io.env.SVC_DEBUG && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
    return failure.exitCode;
  }
}

/**
 * `--help`, `svc help [command]` and `--version` succeed; every other commander error is a usage
 * error (exit 2).
 */
function commanderExit(err: CommanderError, io: Io, askedForHelp: boolean): number {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
  // `svc help nope` shows the help as an error (exit code 1): that is a usage error too.
  if (err.code === 'commander.help' && askedForHelp && err.exitCode === 0) return EXIT.ok;
  // Help shown because a command group was called without a subcommand: the help is the message.
  if (err.code !== 'commander.help') {
    // One line, as every failure: commander puts its "(Did you mean …?)" on a line of its own.
    const message = err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
    io.stderr(`svc: ${message} (see svc --help)\n`);
  }
  return EXIT.usage;
}
