/**
 * One broker child process, spawned in its own process group before it has a node: it loads its
 * modules and then waits for its launch message on stdin (the only place the node token and
 * model key travel), so a spare started ahead of need is launched without paying for its start.
 * From its launch on, its stdout and stderr are appended to the node's broker log. It is stopped
 * with SIGTERM then, after a grace period, SIGKILL for it and everything it started.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, openSync } from 'node:fs';
import { DaemonError } from '../errors.ts';
import type { BrokerLaunch } from '../ports.ts';
import { descendants, type ProcessInfo, signalAll } from './process-tree.ts';

export interface BrokerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BrokerProcess {
  pid: number;
  /** Settles when the process has exited (never rejects). */
  exited: Promise<BrokerExit>;
  /** False once the process has exited: a spare that died is not launched. */
  readonly alive: boolean;
  /**
   * Hands the broker its node: the launch message on stdin; its output from now on is appended
   * to `logFile`. Once only. Throws when the log cannot be opened.
   */
  launch(message: BrokerLaunch, logFile: string): void;
  /**
   * SIGTERM to the broker's group, then SIGKILL to it and to every process it started once
   * `graceMs` passes (`0`: SIGKILL at once, so the broker records nothing more); settles when
   * the broker has exited.
   */
  stop(graceMs: number): Promise<BrokerExit>;
}

export interface SpawnBrokerOptions {
  /** The broker entry script (`src/broker/main.ts`). */
  entry: string;
  /** Where it starts; the launch message names the node's worktree it moves to. */
  cwd: string;
  /** The broker's environment. */
  env: NodeJS.ProcessEnv;
}

export function spawnBroker(opts: SpawnBrokerOptions): BrokerProcess {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', opts.entry], {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) {
    throw new DaemonError('broker_spawn_failed', `could not start ${process.execPath}`);
  }
  let alive = true;
  const exited = new Promise<BrokerExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  void exited.then(() => {
    alive = false;
  });
  // A broker that dies before reading its launch message makes the write fail (EPIPE): its exit
  // tells the supervisor, so the write error has nothing to add.
  child.stdin?.on('error', () => {});

  let launched = false;
  const launch = (message: BrokerLaunch, logFile: string) => {
    if (launched) throw new TypeError(`broker ${pid} is launched already`);
    launched = true;
    // Opened here, so a log that cannot be written fails the launch rather than losing output.
    const log = createWriteStream('', { fd: openSync(logFile, 'a', 0o600) });
    log.on('error', () => {});
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    child.stdin?.end(JSON.stringify(message));
  };

  let stopping: Promise<BrokerExit> | null = null;
  const stop = (graceMs: number) => {
    stopping ??= (async () => {
      // Collected before the broker dies: afterwards its children are re-parented and lost.
      const seen = new Map<number, ProcessInfo>();
      const collect = () => {
        for (const p of descendants(pid)) seen.set(p.pid, p);
      };
      collect();
      let exit: BrokerExit | null = null;
      if (graceMs > 0) {
        signalAll([{ pid, ppid: 0, pgid: pid }], 'SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), graceMs);
        });
        exit = await Promise.race([exited, graceOver]);
        clearTimeout(timer);
        if (exit === null) collect();
      }
      // Whatever is left of the broker's tree goes, in every process group it made.
      signalAll([{ pid, ppid: 0, pgid: pid }, ...seen.values()], 'SIGKILL');
      exit ??= await exited;
      return exit;
    })();
    return stopping;
  };
  return {
    pid,
    exited,
    get alive() {
      return alive;
    },
    launch,
    stop,
  };
}
