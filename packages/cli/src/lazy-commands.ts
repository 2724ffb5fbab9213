/**
 * The top-level commands, each imported only when a run needs it: importing every command (and
 * through them the protocol's schemas and route table) was most of what `svc --version` and
 * `svc status` spent before doing anything. The bundle (bin/bundle.js) keeps each import below
 * a chunk of its own.
 */
import type { Command } from 'commander';
import type { Runtime } from './context.ts';
import { commandWord } from './help-visibility.ts';

/** Adds one top-level command (with its subcommands) to the program. */
export type Register = (program: Command, runtime: Runtime) => void;

/** Every top-level command in the order it is registered: the names it answers to, its module. */
const COMMANDS: readonly (readonly [names: readonly string[], load: () => Promise<Register>])[] = [
  [['daemon'], async () => (await import('./commands/daemon.ts')).registerDaemon],
  [['sys'], async () => (await import('./commands/sys.ts')).registerSys],
  [['status'], async () => (await import('./commands/status.ts')).registerStatus],
  [['grant'], async () => (await import('./commands/grant.ts')).registerGrant],
  [['request'], async () => (await import('./commands/request.ts')).registerRequest],
  [['bash'], async () => (await import('./commands/bash.ts')).registerBash],
  [['files'], async () => (await import('./commands/files.ts')).registerFiles],
  [['events'], async () => (await import('./commands/events.ts')).registerEvents],
  [['models'], async () => (await import('./commands/models.ts')).registerModels],
  [['profile'], async () => (await import('./commands/profile.ts')).registerProfile],
  [['node'], async () => (await import('./commands/node.ts')).registerNode],
  [['run'], async () => (await import('./commands/run.ts')).registerRun],
  [['cron'], async () => (await import('./commands/cron.ts')).registerCron],
  [['objects'], async () => (await import('./commands/objects.ts')).registerObjects],
  [['human'], async () => (await import('./commands/human.ts')).registerHuman],
  [['canvas'], async () => (await import('./commands/canvas.ts')).registerCanvas],
  [['memory'], async () => (await import('./commands/memory.ts')).registerMemory],
  [['pkg'], async () => (await import('./commands/pkg.ts')).registerPkg],
  [['provider'], async () => (await import('./commands/provider.ts')).registerProvider],
  [['upload', 'attachment'], async () => (await import('./commands/upload.ts')).registerUpload],
  [['share'], async () => (await import('./commands/share.ts')).registerShare],
  [['question'], async () => (await import('./commands/question.ts')).registerQuestion],
  // Walks the whole tree to write its script: never alone (below).
  [['completion'], async () => (await import('./commands/completion.ts')).registerCompletion],
];

/** The names of every top-level command, for tests that check this table against the tree. */
export const COMMAND_NAMES: readonly string[] = COMMANDS.flatMap(([names]) => names);

/**
 * The commands `args` (argv after node and the script) needs: none for `--version` alone, the
 * named command's own, else every one (the help, `completion`, a word commander must suggest a
 * command for, a bare `svc`).
 */
export async function registersFor(args: readonly string[]): Promise<Register[]> {
  const word = commandWord(args);
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  const help = options.includes('-h') || options.includes('--help');
  if ((word === '-V' || word === '--version') && !help) return [];
  const own = COMMANDS.find(([names]) => word !== undefined && names.includes(word));
  const chosen = own !== undefined && own[0][0] !== 'completion' ? [own] : COMMANDS;
  return Promise.all(chosen.map(([, load]) => load()));
}
