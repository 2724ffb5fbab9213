/**
 * One broker child process: spawned in its own process group with its launch message on stdin
 * (the only place the node token and model key travel), its stderr appended to the node's broker
 * log, and stopped with SIGTERM then, after a grace period, SIGKILL for it and everything it
 * started.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { brokerLaunchSchema } from '@svc/protocol';
import type { z } from 'zod';
import { DaemonError } from '../errors.ts';
import { descendants, type ProcessInfo, signalAll } from './process-tree.ts';

export type BrokerLaunch = z.input<typeof brokerLaunchSchema>;

export interface BrokerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BrokerProcess {
  pid: number;
  /** Settles when the process has exited (never rejects). */
  exited: Promise<BrokerExit>;
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
  launch: BrokerLaunch;
  /** The broker's working directory: the node's worktree. */
  cwd: string;
  /** stdout and stderr are appended here. */
  logFile: string;
}

export function spawnBroker(opts: SpawnBrokerOptions): BrokerProcess {
  const log = openSync(opts.logFile, 'a', 0o600);
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', opts.entry], {
      cwd: opts.cwd,
      detached: true,
      stdio: ['pipe', log, log],
    });
  } finally {
    closeSync(log);
  }
  const pid = child.pid;
  if (pid === undefined) {
    throw new DaemonError('broker_spawn_failed', `could not start ${process.execPath}`);
  }
  const exited = new Promise<BrokerExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  // A broker that dies before reading its launch message makes the write fail (EPIPE): its exit
  // tells the supervisor, so the write error has nothing to add.
  child.stdin?.on('error', () => {});
  child.stdin?.end(JSON.stringify(opts.launch));

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
  return { pid, exited, stop };
}
