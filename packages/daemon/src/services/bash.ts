import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { BASH_DEFAULT_TIMEOUT_MS, BASH_TIMEOUT_MAX_MS } from '@svc/protocol';
import { ApiError } from '../errors.ts';

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
}

/**
 * Runs one command with `/bin/sh -c` in its own process group, so a timeout (or `stop`, when the
 * daemon gives up draining) kills everything the command started, not only the shell. A non-zero
 * exit is a result, not an error; a kill shows as `exit_code: null` with the `signal`.
 */
export async function runBash(input: BashInput, stop: AbortSignal): Promise<BashResult> {
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
  await checkCwd(input.cwd);
  const started = performance.now();
  const child = spawn('/bin/sh', ['-c', input.command], {
    cwd: input.cwd,
    env: { ...process.env, ...input.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
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
  ).finally(() => {
    clearTimeout(timer);
    stop.removeEventListener('abort', kill);
  });

  return {
    exit_code: code,
    signal,
    stdout: stdout.text(),
    stderr: stderr.text(),
    truncated: stdout.truncated() || stderr.truncated(),
    duration_ms: Math.round(performance.now() - started),
  };
}

async function checkCwd(cwd: string): Promise<void> {
  if (!isAbsolute(cwd)) {
    throw new ApiError(
      'invalid_request',
      `cwd must be an absolute path; received ${JSON.stringify(cwd)}`,
      { field: 'cwd' },
    );
  }
  const info = await stat(cwd).catch(() => null);
  if (info === null || !info.isDirectory()) {
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
