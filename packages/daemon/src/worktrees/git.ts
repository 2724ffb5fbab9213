/**
 * Running `git` on a repository a node can write: its common git directory is mounted
 * read-write in the node's sandbox, and an app with a files scope on the repository can write it
 * too, so its config (and every file it includes, on conditions such as the branch checked out)
 * is theirs. A checkout runs the smudge filters it names, a `status` the clean ones: a program of
 * theirs. So every call that works on a node's worktree goes through a `GitRunner`, which the
 * daemon gives a sandbox showing only the repository's common git directory and that worktree
 * (`bash/git-runner.ts`): whatever git runs reaches nothing the node could not already write.
 * Listing the filters to turn them off was not enough alone: a config included only on the new
 * branch is not seen from the repository's own, and a node can rewrite the config between the
 * list and the checkout. They are still turned off (a required LFS filter would fail a checkout
 * with no network), with hooks, the fsmonitor, submodule recursion and every transport, in git's
 * `GIT_CONFIG_COUNT` environment, which outranks every config file.
 */
import { execFile, spawnSync } from 'node:child_process';

/** Longer than any checkout of a sane repository; a stuck git is killed, not waited on. */
export const GIT_TIMEOUT_MS = 120_000;
const MAX_OUTPUT = 16 * 1024 * 1024;

type Setting = readonly [key: string, value: string];

const HARDENED: readonly Setting[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['submodule.recurse', 'false'],
  ['protocol.allow', 'never'],
];

/** Where git runs: a directory it discovers the repository from, or an explicit git directory. */
export type GitPlace = { cwd: string } | { gitDir: string; workTree?: string };

export interface GitResult {
  ok: boolean;
  stdout: string;
  /** git's last `fatal:` or `error:` line, else its first line (or how it ended), for a message. */
  error: string;
}

/** One git process on a node's repository: what it runs, and the only files it may reach. */
export interface GitCall {
  /** Everything after `git`. */
  args: string[];
  /** git's own variables (`GIT_CONFIG_*`), added to the environment it runs in. */
  env: Record<string, string>;
  /** The repository's common git directory (read-write): its objects, refs and worktree entries. */
  repository: string;
  /** The node's worktree (read-write; an empty directory for an add), when the call works on it. */
  worktree?: string;
}

/** Starts a `GitCall` and tells how it ended; throws when it cannot be started as asked. */
export type GitRunner = (call: GitCall) => Promise<GitResult>;

/** A git call on `repository` (and its worktree `worktree`, if any), made by `run`. */
export type GitOn = Pick<GitCall, 'repository' | 'worktree'> & { run: GitRunner };

/**
 * `git <args>` at `place`. `filtered`: the call may check out or compare files (an add, a
 * status), so the repository's filter drivers are listed first and turned off for it.
 */
export async function gitOn(
  on: GitOn,
  place: GitPlace,
  args: readonly string[],
  filtered = false,
): Promise<GitResult> {
  const at = placeArgs(place);
  const call = (argv: string[], settings: readonly Setting[]) =>
    on.run({
      args: argv,
      env: gitSettings(settings),
      repository: on.repository,
      ...(on.worktree !== undefined && { worktree: on.worktree }),
    });
  const drivers = filtered ? filterDrivers(await call([...at, ...LIST_FILTERS], HARDENED)) : [];
  return call([...at, ...args], [...HARDENED, ...drivers.flatMap(neutralized)]);
}

/**
 * `git rev-parse …` at `place`, in the daemon itself, for a create's checks. rev-parse only reads
 * the repository's config and refs: it checks nothing out and refreshes no index, so no program a
 * config names runs; anything more goes through `gitOn`.
 */
export function revParse(place: GitPlace, args: readonly string[]): GitResult {
  const result = spawnSync('git', [...placeArgs(place), 'rev-parse', ...args], {
    encoding: 'utf8',
    env: daemonGitEnv(HARDENED),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: MAX_OUTPUT,
  });
  if (result.error !== undefined) {
    return { ok: false, stdout: '', error: `git could not run: ${result.error.message}` };
  }
  return resultOf(result.status === 0, result.stdout, result.stderr, result.signal !== null);
}

/**
 * A `GitRunner` with no sandbox, in the daemon's own environment: only where commands run
 * unconfined anyway (`--sandbox off`), and for tests of what is not confinement.
 */
export const bareGit: GitRunner = (call) =>
  new Promise((resolve) => {
    const options = {
      encoding: 'utf8' as const,
      env: { ...daemonGitEnv([]), ...call.env },
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT,
    };
    execFile('git', call.args, options, (error, stdout, stderr) => {
      if (error !== null && typeof error.code === 'string') {
        resolve({ ok: false, stdout: '', error: `git could not run: ${error.message}` });
        return;
      }
      resolve(resultOf(error === null, stdout, stderr, error?.killed === true));
    });
  });

/** Every `filter.*` setting of the repository's config, its includes followed. */
const LIST_FILTERS = ['config', '--null', '--get-regexp', '^filter\\.'];

function placeArgs(place: GitPlace): string[] {
  if ('cwd' in place) return ['-C', place.cwd];
  return [
    `--git-dir=${place.gitDir}`,
    ...(place.workTree === undefined ? [] : [`--work-tree=${place.workTree}`]),
  ];
}

/** The filter drivers named in `LIST_FILTERS`'s answer. */
function filterDrivers(listed: GitResult): string[] {
  if (!listed.ok) return []; // none (git answers 1), or no repository: the real call says so
  const names = new Set<string>();
  for (const entry of listed.stdout.split('\0')) {
    // `filter.<name>.<key>\n<value>`: the name may hold dots, the key never does.
    const key = entry.split('\n', 1)[0] ?? '';
    const name = key.slice('filter.'.length, key.lastIndexOf('.'));
    if (key.startsWith('filter.') && name.length > 0) names.add(name);
  }
  return [...names];
}

/** Empty commands run nothing; a driver marked required would then fail the checkout. */
function neutralized(name: string): Setting[] {
  return [
    [`filter.${name}.clean`, ''],
    [`filter.${name}.smudge`, ''],
    [`filter.${name}.process`, ''],
    [`filter.${name}.required`, 'false'],
  ];
}

/** How a git process ended, as a `GitResult`. */
export function resultOf(ok: boolean, stdout: string, stderr: string, killed: boolean): GitResult {
  // git says what it is doing before what went wrong ("Preparing worktree …", then "fatal: …").
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const complaint = lines.findLast((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? '';
  const ended = killed ? 'git was killed (it ran too long)' : 'git failed';
  return { ok, stdout, error: complaint.trim() || ended };
}

/** `settings` as `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`, and no prompt for a password. */
function gitSettings(settings: readonly Setting[]): Record<string, string> {
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(settings.length),
  };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** The daemon's environment without git's own variables (which would point git elsewhere). */
function daemonGitEnv(settings: readonly Setting[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return { ...env, ...gitSettings(settings) };
}
