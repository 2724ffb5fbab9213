import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';
import { BASH_DEFAULT_TIMEOUT_MS, BASH_TIMEOUT_MAX_MS } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { assertConfinable, assertVisible, commandEnv, sandboxedSpawn } from '../sandbox/command.ts';
import type { SandboxPlan } from '../sandbox/plan.ts';
import type { SandboxSession } from '../sandbox/session.ts';

/** Each of stdout and stderr is kept up to this many bytes; the rest is dropped, `truncated` set. */
export const BASH_OUTPUT_CAP_BYTES = 1024 * 1024;
/** How long output is still read after the shell exited, from what it left running. */
const PIPE_GRACE_MS = 250;

export interface BashInput {
  command: string;
  cwd: string;
  timeout_ms?: number | undefined;
  env?: Record<string, string> | undefined;
}

export interface BashResult {
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  duration_ms: number;
  /**
   * How it ran: `bubblewrap`, confined; `off`, unconfined because the daemon was started with
   * `--sandbox off` (with `warning` saying so); `null`, the person's own command.
   */
  sandbox: 'bubblewrap' | 'off' | null;
  warning?: string;
}

/**
 * How a command runs: `null`, the person's own (unconfined); otherwise the plan of the token or
 * node it runs for, and the mark its processes carry.
 */
export type Confinement = {
  plan: SandboxPlan;
  tag?: { name: string; value: string };
  /**
   * The node's sandbox, reused by its commands (`../sandbox/session.ts`); `null` when it could
   * not be made, and then each command gets a sandbox of its own.
   */
  session?: () => Promise<SandboxSession | null>;
} | null;

export const SANDBOX_OFF_WARNING =
  "this command ran unconfined: the daemon was started with --sandbox off, so it had the whole of the person's account";

/**
 * Runs one command with `/bin/sh -c` in its own process group, so a timeout (or `stop`, when the
 * daemon gives up draining) kills everything the command started, not only the shell. A non-zero
 * exit is a result, not an error; a kill shows as `exit_code: null` with the `signal`.
 */
export async function runBash(
  input: BashInput,
  stop: AbortSignal,
  confine: Confinement = null,
): Promise<BashResult> {
  const timeout = input.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS;
  if (timeout > BASH_TIMEOUT_MAX_MS) {
    throw new ApiError(
      'validation_failed',
      `timeout_ms is at most ${BASH_TIMEOUT_MAX_MS} (10 minutes)`,
      {
        field: 'timeout_ms',
        received: timeout,
      },
    );
  }
  checkAbsolute(input.cwd);
  const sandboxed = confine !== null && confine.plan.mode === 'on';
  if (sandboxed && confine.session !== undefined) {
    assertConfinable(confine.plan);
    assertVisible(confine.plan, input.cwd);
    checkCwd(input.cwd);
    const session = await confine.session();
    if (session !== null) return runInSession(session, input, stop, timeout, confine);
  }
  // Before the host is asked whether `cwd` exists: a path outside the sandbox is refused as
  // such, so a confined caller learns nothing of what lies outside it.
  const jail = sandboxed ? sandboxedSpawn(confine.plan, input, confine.tag) : null;
  let fds: number[] = [];
  try {
    checkCwd(input.cwd);
    if (jail !== null) fds = jail.open();
  } catch (error) {
    await jail?.done();
    throw error;
  }
  const started = performance.now();
  const child =
    jail === null
      ? spawn('/bin/sh', ['-c', input.command], {
          cwd: input.cwd,
          // The mark too: a host runs many nodes, so it is never in the process's own env.
          env: {
            ...process.env,
            ...input.env,
            ...(confine?.tag !== undefined && { [confine.tag.name]: confine.tag.value }),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        })
      : (spawn(jail.file, jail.args, {
          // Not the daemon's directory: the launcher's PWD is what the sandbox's init inherits.
          cwd: '/',
          env: jail.env,
          stdio: ['ignore', 'pipe', 'pipe', ...fds],
          detached: true,
        }) as ChildProcessByStdio<null, Readable, Readable>);
  jail?.spawned();
  const stdout = capped(child.stdout);
  const stderr = capped(child.stderr);
  const kill = () => killGroup(child.pid);
  const timer = setTimeout(kill, timeout);
  stop.addEventListener('abort', kill);

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c, s) => resolve([c, s]));
      // A process the command left running in a session of its own (`setsid … &`) escapes the
      // group kill and may hold the output pipes open long after the shell exited: the answer
      // waits a moment for the rest of the output, then stops reading and is given.
      child.once('exit', (c, s) => {
        const late = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          resolve([c, s]);
        }, PIPE_GRACE_MS);
        child.once('close', () => clearTimeout(late));
      });
    },
  ).finally(async () => {
    clearTimeout(timer);
    stop.removeEventListener('abort', kill);
    await jail?.done();
  });

  return {
    exit_code: code,
    signal,
    stdout: stdout.text(),
    stderr: stderr.text(),
    truncated: stdout.truncated() || stderr.truncated(),
    duration_ms: Math.round(performance.now() - started),
    sandbox: confine === null ? null : sandboxed ? 'bubblewrap' : 'off',
    ...(confine !== null && !sandboxed && { warning: SANDBOX_OFF_WARNING }),
  };
}

/** The command in its node's sandbox session; the same result as a sandbox of its own. */
async function runInSession(
  session: SandboxSession,
  input: BashInput,
  stop: AbortSignal,
  timeout: number,
  confine: NonNullable<Confinement>,
): Promise<BashResult> {
  const started = performance.now();
  const kill = new AbortController();
  const timer = setTimeout(() => kill.abort(), timeout);
  try {
    const env = commandEnv(confine.plan, input.env, confine.tag);
    const r = await session.run(
      { command: input.command, cwd: input.cwd, env },
      AbortSignal.any([stop, kill.signal]),
    );
    const cut = (b: Buffer) => b.subarray(0, BASH_OUTPUT_CAP_BYTES).toString('utf8');
    return {
      exit_code: r.code,
      signal: r.signal,
      stdout: cut(r.stdout),
      stderr: cut(r.stderr),
      truncated: r.stdout.length > BASH_OUTPUT_CAP_BYTES || r.stderr.length > BASH_OUTPUT_CAP_BYTES,
      duration_ms: Math.round(performance.now() - started),
      sandbox: 'bubblewrap',
    };
  } finally {
    clearTimeout(timer);
  }
}

function checkAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) {
    throw new ApiError(
      'invalid_request',
      `cwd must be an absolute path; received ${JSON.stringify(cwd)}`,
      { field: 'cwd' },
    );
  }
}

/** Sync: one stat of a local directory costs less than the thread pool's round trip per command. */
function checkCwd(cwd: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // Missing, a file on the way, unreadable: not a directory the command can start in.
  }
  if (!isDirectory) {
    throw new ApiError(
      'invalid_request',
      `cwd ${JSON.stringify(cwd)} is not an existing directory`,
      { field: 'cwd' },
    );
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function capped(stream: NodeJS.ReadableStream) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = false;
  stream.on('data', (chunk: Buffer) => {
    const room = BASH_OUTPUT_CAP_BYTES - kept;
    if (chunk.length > room) dropped = true;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(part);
    kept += part.length;
  });
  return {
    text: () => Buffer.concat(chunks).toString('utf8'),
    truncated: () => dropped,
  };
}
