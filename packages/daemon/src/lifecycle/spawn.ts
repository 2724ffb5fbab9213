import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveHome } from '@svc/protocol/home';
import { DaemonError } from '../errors.ts';
import { daemonBundle } from './daemon-bundle.ts';
import { prepareHome } from './home.ts';
import { readLock } from './lock.ts';

export interface SpawnDaemonOptions {
  home?: string;
  /** `[HOST:]PORT`: also turn the TCP listener on. */
  tcp?: string;
  /** Brokers at once (`--brokers`); default the daemon's (`SVC_BROKERS`, else 4). */
  brokers?: number;
  /** pino level of `logs/daemon.log` (`--log-level`); default `info`. */
  logLevel?: string;
  /** `--sandbox off`: the commands of nodes and scoped tokens run unconfined (and say so). */
  sandbox?: 'on' | 'off';
  /** How long to wait for `/healthz`; default 10 s. */
  timeoutMs?: number;
}

/**
 * The C library's allocator settings of the daemon's process, unless the environment sets them.
 * glibc raises its trim threshold to twice the largest block it ever freed from an mmap (up to
 * 64 MB), so after a burst the free memory at the top of its heap stays resident: 1,000 nodes
 * launched and parked left the daemon's C heap 0–28 MB larger (five runs). Set, the threshold
 * stays at glibc's own default, 128 KiB, and the heap is trimmed: 1 MB larger (two runs).
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  MALLOC_TRIM_THRESHOLD_: String(128 * 1024),
};

/** The daemon's entry script, run as a process of its own (or its bundle, when it can be had). */
export const DAEMON_MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
// Every 10 ms: a ready daemon answers within one, and a look costs a file read and a request.
const POLL_MS = 10;

/**
 * Starts a detached daemon process (`node src/main.ts --home …`) that outlives the caller, and
 * resolves once it answers `GET /healthz` on its socket and holds the home's lock. Its stdout and
 * stderr go to `logs/daemon.log`, whose tail is quoted when it fails to come up.
 */
export async function spawnDaemon(
  opts: SpawnDaemonOptions = {},
): Promise<{ pid: number; socketPath: string }> {
  const paths = prepareHome(resolveHome(opts.home));
  const running = readLock(paths.home);
  if (running !== null) throw alreadyRunning(running.pid, paths.home);
  // Bundled, it starts in a fraction of the time (`./daemon-bundle.ts`); else the sources.
  const entry = (await daemonBundle()) ?? DAEMON_MAIN;
  const args = ['--disable-warning=ExperimentalWarning', entry, '--home', paths.home];
  if (opts.tcp !== undefined) args.push('--tcp', opts.tcp);
  if (opts.brokers !== undefined) args.push('--brokers', String(opts.brokers));
  if (opts.logLevel !== undefined) args.push('--log-level', opts.logLevel);
  if (opts.sandbox !== undefined) args.push('--sandbox', opts.sandbox);
  const log = openSync(paths.logFile, 'a', 0o600);
  let exited: string | null = null;
  try {
    // The compile cache `main.ts` enables, from the process's start: a bundle's dependencies
    // load before any of its code runs.
    const env = {
      ...ALLOCATOR_ENV,
      ...process.env,
      NODE_COMPILE_CACHE: join(paths.home, 'cache', 'node'),
    };
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: ['ignore', log, log],
      env,
    });
    child.once('exit', (code, signal) => {
      exited = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
    });
    child.unref();
    const pid = child.pid;
    if (pid === undefined)
      throw new DaemonError('spawn_failed', `could not start ${process.execPath}`);

    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    while (Date.now() < deadline && exited === null) {
      if (readLock(paths.home)?.pid === pid && (await healthy(paths.socket))) {
        return { pid, socketPath: paths.socket };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (exited === null) process.kill(pid, 'SIGKILL');
    // Another start won the lock between our check and our child's: that is the refusal above,
    // not a failure to start, and the log's last lines are the winner's.
    const winner = readLock(paths.home);
    if (exited !== null && winner !== null && winner.pid !== pid) {
      throw alreadyRunning(winner.pid, paths.home);
    }
    const why = exited ?? `did not answer GET /healthz within ${opts.timeoutMs ?? 10_000} ms`;
    throw new DaemonError(
      'spawn_failed',
      `the svc daemon ${why}; last lines of ${paths.logFile}:\n${tail(paths.logFile)}`,
    );
  } finally {
    closeSync(log);
  }
}

function alreadyRunning(pid: number, home: string): DaemonError {
  return new DaemonError('daemon_running', `another svc daemon (pid ${pid}) is running on ${home}`);
}

function healthy(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/healthz', timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('error', () => resolve(false));
    req.once('timeout', () => req.destroy());
    req.end();
  });
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
