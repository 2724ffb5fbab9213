/**
 * The top-level commands under headings in `svc --help`, as `gh` and `docker` group theirs, so
 * the two dozen commands read as a few areas instead of one list.
 */
import type { Command } from 'commander';

const GROUPS: readonly (readonly [heading: string, names: readonly string[]])[] = [
  ['Agents:', ['node', 'run', 'profile', 'models', 'cron', 'human', 'question']],
  ['Watch:', ['canvas', 'events', 'status']],
  ['Daemon and access:', ['daemon', 'sys', 'grant']],
  [
    'Data and tools:',
    ['files', 'memory', 'bash', 'objects', 'upload', 'attachment', 'share', 'pkg', 'provider'],
  ],
  ['More:', ['request', 'completion', 'help']],
];

/** Puts each top-level command of `program` under its heading; one left out goes under `More:`. */
export function groupCommands(program: Command): void {
  const order = GROUPS.flatMap(([heading, names]) => names.map((name) => [name, heading] as const));
  const rank = (command: Command) => {
    const at = order.findIndex(([name]) => name === command.name());
    return at === -1 ? order.length : at;
  };
  for (const command of program.commands) {
    command.helpGroup(order[rank(command)]?.[1] ?? 'More:');
  }
  // Help lists the groups in the order their first command comes: this order, not registration's.
  (program.commands as Command[]).sort((a, b) => rank(a) - rank(b));
  // The implicit `help` command is made on demand: made now, it takes the group set before it.
  program.commandsGroup('More:').helpCommand(true);
}
