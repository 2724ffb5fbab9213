/**
 * The tools a node's broker offers its model: the built-ins below, each gated by the scope of
 * the route it acts through (SPEC "Scope vocabulary": `svc:act` gates bash, files, creating or
 * messaging nodes and asking a human), and every installed plugin group `<plugin>:<group>` its
 * scopes cover.
 * The file tools then need a files scope for each path, except inside the node's own worktree.
 */
import { listCovers } from '../scopes/covers.ts';
import type { Scope } from '../scopes/parse.ts';

export interface BuiltinTool {
  /** The scope a node needs for the tool; `null` = every node has it. */
  scope: Scope | null;
  description: string;
}

export const BUILTIN_TOOLS = Object.freeze({
  bash: { scope: 'svc:act', description: 'run one command in an absolute working directory' },
  read_file: { scope: 'svc:act', description: 'read a slice of a file as text or base64' },
  write_file: { scope: 'svc:act', description: 'write a whole file atomically (at most 1 MiB)' },
  list_files: { scope: 'svc:act', description: "list a directory's entries" },
  spawn: { scope: 'svc:act', description: 'create a child node with a task' },
  message: { scope: 'svc:act', description: 'send mail to a node of the same tree' },
  ask_human: {
    scope: 'svc:act',
    description: 'ask the person a question, approval or review; the answer arrives as mail',
  },
  wait: { scope: null, description: 'wait for children (all or any), a human response or a time' },
  yield: { scope: null, description: 'end the turn and wait for mail' },
  report: { scope: null, description: 'post a progress report to the parent and the canvas' },
  submit: { scope: null, description: 'submit the result; the node is done' },
  // Every node: its own space and its app's need no scope (SPEC "Scope vocabulary", rule 2);
  // the daemon checks each call against the node's memory scopes as it checks any token's.
  memory_read: { scope: null, description: 'read a memory document' },
  memory_list: { scope: null, description: "list a memory space's documents" },
  memory_write: { scope: null, description: 'create or replace a memory document' },
} as const satisfies Record<string, BuiltinTool>);

export type BuiltinToolName = keyof typeof BUILTIN_TOOLS;

/**
 * A built-in name (`_` allowed: `read_file`) or `<plugin>:<group>` (each part a lowercase name,
 * as in scopes).
 */
export const TOOL_NAME_PATTERN =
  /^(?:[a-z][a-z0-9_-]{0,62}|[a-z][a-z0-9-]{0,62}:[a-z][a-z0-9-]{0,62})$/;

export function isBuiltinTool(name: string): name is BuiltinToolName {
  return Object.hasOwn(BUILTIN_TOOLS, name);
}

/**
 * The tools a node gets: those its scope list allows (`null` = the owner's: everything), cut to
 * the profile's allow-list when it has one (`null` = no cut). `plugins` are the installed plugin
 * groups `<plugin>:<group>`; each is also its own scope. Order: built-ins, then plugins, as given.
 */
export function availableTools(
  scopes: readonly Scope[] | null,
  allowed: readonly string[] | null,
  plugins: readonly string[] = [],
): string[] {
  const builtins = (Object.keys(BUILTIN_TOOLS) as BuiltinToolName[]).filter((name) => {
    const scope: Scope | null = BUILTIN_TOOLS[name].scope;
    return scope === null || listCovers(scopes, scope);
  });
  const groups = plugins.filter((group) => listCovers(scopes, group));
  return [...builtins, ...groups].filter((name) => allowed === null || allowed.includes(name));
}

/** Model providers allow `[a-zA-Z0-9_-]{1,64}` in a tool's name. */
const MAX_TOOL_NAME = 64;

/**
 * The name a node's model calls an installed plugin's command by, `<plugin>_<group>_<command>`,
 * or `null` when agents are not offered it. Providers refuse the `:` of a group's scope; plugin,
 * group and command names hold no `_` (`[a-z][a-z0-9-]*`), so the name is unambiguous. Not
 * offered: one whose name would pass the providers' limit. Every auth mode is offered: a
 * directory-mode plugin's calls carry a token the daemon's directory signs.
 */
export function pluginToolName(command: { scope: string; name: string }): string | null {
  const name = `${command.scope.replace(':', '_')}_${command.name}`;
  return name.length > MAX_TOOL_NAME ? null : name;
}
