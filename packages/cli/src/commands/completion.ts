/**
 * `svc completion bash|zsh|fish`: a shell completion script for every command, subcommand and
 * option, as `gh completion -s` and `docker completion` print theirs. The script is written from
 * the command tree itself, so it never lists a command that does not exist, and completes
 * without starting `svc` (Node) on every Tab.
 */
import type { Command, Option } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

export function registerCompletion(program: Command, runtime: Runtime): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      `
Examples:
  source <(svc completion bash)                                  # this bash session
  svc completion bash > ~/.local/share/bash-completion/completions/svc
  svc completion zsh > "\${fpath[1]}/_svc"                        # then restart zsh
  svc completion fish > ~/.config/fish/completions/svc.fish`,
    )
    .action(
      action(runtime, async (ctx: Context, shell: string) => {
        if (!(SHELLS as readonly string[]).includes(shell)) {
          throw new UsageError(`shell must be one of ${SHELLS.join(', ')}; received '${shell}'`);
        }
        ctx.out.line(completionScript(program, shell as Shell));
        return EXIT.ok;
      }),
    );
}

/** One command of the tree: its path (`node worktree`), what follows it, and what it is. */
interface Entry {
  path: string;
  description: string;
  commands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

/** Every command of the tree, depth first, with its subcommands (aliases too) and long options. */
export function commandTree(root: Command): Entry[] {
  const entries: Entry[] = [];
  const walk = (command: Command, path: string, inherited: readonly Option[]) => {
    const options = [...inherited, ...command.options].filter((o) => o.long !== undefined);
    const subs = command.commands.filter((c) => c.name() !== 'help');
    entries.push({
      path,
      description: command.description(),
      commands: subs.flatMap((c) =>
        [c.name(), ...c.aliases()].map((name) => ({ name, description: c.description() })),
      ),
      options: [
        ...options.map((o) => ({ flag: o.long!, description: o.description })),
        { flag: '--help', description: 'show help for a command' },
      ],
    });
    // Global options (--home, --json, --jq) work after any subcommand too.
    const passed = command === root ? command.options : inherited;
    for (const sub of subs) {
      for (const name of [sub.name(), ...sub.aliases()]) {
        walk(sub, path === '' ? name : `${path} ${name}`, passed);
      }
    }
  };
  walk(root, '', []);
  return entries;
}

export function completionScript(root: Command, shell: Shell): string {
  const entries = commandTree(root);
  if (shell === 'fish') return fishScript(entries);
  const bash = bashScript(entries);
  if (shell === 'bash') return bash;
  // zsh runs the same completion through its bash compatibility layer.
  return `#compdef svc\n# svc completion for zsh\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
}

/** `'…'` for a shell: every `'` closed, escaped and reopened. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function bashScript(entries: readonly Entry[]): string {
  const table = entries
    .map((e) => {
      const words = [...e.commands.map((c) => c.name), ...e.options.map((o) => o.flag)];
      // bash refuses an empty key: every path starts with the command's own name.
      return `  [${quote(e.path === '' ? 'svc' : `svc ${e.path}`)}]=${quote(words.join(' '))}`;
    })
    .join('\n');
  return `# svc completion for bash: source <(svc completion bash)
declare -gA _svc_words=(
${table}
)
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path=svc word next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    next="$path $word"
    [[ -n "\${_svc_words[$next]+set}" ]] && path="$next"
  done
  COMPREPLY=($(compgen -W "\${_svc_words[$path]}" -- "$cur"))
}
complete -o default -F _svc svc
`;
}

function fishScript(entries: readonly Entry[]): string {
  const known = entries
    .filter((e) => e.path !== '')
    .map((e) => quote(e.path))
    .join(' ');
  const lines = entries.flatMap((e) => {
    const at = `-n ${quote(`__svc_at ${quote(e.path)}`)}`;
    return [
      ...e.commands.map(
        (c) => `complete -c svc ${at} -a ${quote(c.name)} -d ${quote(c.description)}`,
      ),
      ...e.options.map(
        (o) => `complete -c svc ${at} -l ${quote(o.flag.slice(2))} -d ${quote(o.description)}`,
      ),
    ];
  });
  return `# svc completion for fish: svc completion fish > ~/.config/fish/completions/svc.fish
function __svc_path
    set -l known ${known}
    set -l path ''
    for word in (commandline -opc)[2..-1]
        string match -q -- '-*' $word; and continue
        set -l next (string trim -- "$path $word")
        contains -- $next $known; and set path $next
    end
    echo $path
end
function __svc_at
    set -l path (__svc_path)
    test "$path" = "$argv[1]"
end
${lines.join('\n')}
`;
}
