/**
 * Running `git` in the daemon on a repository a node can write: its common git directory is
 * mounted read-write in the node's sandbox, so its hooks and config are the node's to rewrite,
 * and the daemon runs git unconfined. Every call therefore turns off what git would run on its
 * own: hooks (`post-checkout` at `worktree add`), the fsmonitor, submodule recursion, every
 * transport (`protocol.allow=never`), and each filter driver the repository configures (a smudge
 * filter runs at checkout, a clean filter at `status`). The settings travel in git's
 * `GIT_CONFIG_COUNT` environment, which outranks every config file, reaches the git processes a
 * command starts, and never parses a driver's name. Calls are bounded; `gitAsync` is for those
 * that may take long (a checkout), which would otherwise hold the daemon's event loop.
 */
import { execFile, spawnSync } from 'node:child_process';

/** Longer than any checkout of a sane repository; a stuck git is killed, not waited on. */
const GIT_TIMEOUT_MS = 120_000;
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

/** `git <args>` at `place`, with what git would run by itself turned off. */
export function git(place: GitPlace, args: readonly string[]): GitResult {
  const at = placeArgs(place);
  const drivers = filterDrivers(run([...at, ...LIST_FILTERS], HARDENED));
  return run([...at, ...args], [...HARDENED, ...drivers.flatMap(neutralized)]);
}

/** `git` without blocking: the same call, run in the background. */
export async function gitAsync(place: GitPlace, args: readonly string[]): Promise<GitResult> {
  const at = placeArgs(place);
  const drivers = filterDrivers(await runAsync([...at, ...LIST_FILTERS], HARDENED));
  return runAsync([...at, ...args], [...HARDENED, ...drivers.flatMap(neutralized)]);
}

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

function run(args: readonly string[], settings: readonly Setting[]): GitResult {
  const result = spawnSync('git', args, {
    encoding: 'utf8',
    env: gitEnv(settings),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: MAX_OUTPUT,
  });
  if (result.error !== undefined) {
    return { ok: false, stdout: '', error: `git could not run: ${result.error.message}` };
  }
  return resultOf(result.status === 0, result.stdout, result.stderr, result.signal !== null);
}

function runAsync(args: readonly string[], settings: readonly Setting[]): Promise<GitResult> {
  const options = {
    encoding: 'utf8' as const,
    env: gitEnv(settings),
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: MAX_OUTPUT,
  };
  return new Promise((resolve) => {
    execFile('git', args, options, (error, stdout, stderr) => {
      if (error !== null && typeof error.code === 'string') {
        resolve({ ok: false, stdout: '', error: `git could not run: ${error.message}` });
        return;
      }
      resolve(resultOf(error === null, stdout, stderr, error?.killed === true));
    });
  });
}

function resultOf(ok: boolean, stdout: string, stderr: string, killed: boolean): GitResult {
  // git says what it is doing before what went wrong ("Preparing worktree …", then "fatal: …").
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const complaint = lines.findLast((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? '';
  const ended = killed ? 'git was killed (it ran too long)' : 'git failed';
  return { ok, stdout, error: complaint.trim() || ended };
}

/**
 * The daemon's environment without git's own variables (which would point git elsewhere), plus
 * `settings` as `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`.
 */
function gitEnv(settings: readonly Setting[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_CONFIG_COUNT = String(settings.length);
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
