import type { Command } from 'commander';

/**
 * The client's verbs for the CLI's short ones, as aliases: `svc node list` works as `svc node ls`,
 * `get` as `show`, `delete` as `rm` (and `ls` as `list` where `list` is the name), so a user who
 * knows the client's method names (`nodes.list`, `crons.delete`) finds the command. An alias a
 * sibling command already holds as its name is not added.
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  ls: ['list'],
  list: ['ls'],
  show: ['get', 'retrieve'],
  rm: ['delete'],
};

export function addVerbAliases(command: Command): void {
  const taken = new Set(command.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  for (const sub of command.commands) {
    for (const alias of ALIASES[sub.name()] ?? []) {
      if (taken.has(alias)) continue;
      sub.alias(alias);
      taken.add(alias);
    }
    addVerbAliases(sub);
  }
}
