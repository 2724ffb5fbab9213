/**
 * One agent host process (`../broker/host.ts`), spawned in its own process group before it has
 * a node: it loads its modules and then runs the loops of the nodes it is leased for, up to its
 * capacity. Its answers come on fd 3 (`../broker/host-protocol.ts`): a node's log lines, appended
 * to that node's log, and each node's end, which settles that node's lease (`./host-lease.ts`).
 * Whatever else it prints (stdout, stderr) goes to its own log, `host-<pid>.log`. A host that
 * exits ends every lease it still holds with its exit: to each node, a broker crash.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, openSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOST_CHANNEL_FD, parseObject, readLines } from '../broker/host-protocol.ts';
import { DaemonError } from '../errors.ts';
import { PRIVATE_TMP_ENV } from '../sandbox/private-tmp.ts';
import type { BrokerExit, BrokerProcess } from './broker-process.ts';
import { createLease, exitOf, type LeaseSink } from './host-lease.ts';
import { descendants, signalAll } from './process-tree.ts';

/**
 * How long a profiling host is given to end itself and write its profile before its kill (a
 * diagnostic mode: a stop may then take this long; a host still loading its modules under load
 * takes seconds).
 */
const PROFILE_EXIT_MS = 10_000;

/** The host's young generation's cap, per semi-space (MB). */
export const HOST_SEMI_SPACE_MB = 4;

export interface AgentHost {
  readonly pid: number;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<BrokerExit>;
  /** False once it exited or is being killed: no lease is taken on it then. */
  readonly alive: boolean;
  /** Nodes it runs at most. */
  readonly capacity: number;
  /** Leases held: nodes launched or about to be, not yet ended. */
  readonly load: number;
  /** From now on it takes no node beyond those it holds (a host kept for one node alone). */
  isolate(): void;
  /** A slot for one node: a `BrokerProcess` whose pid is the host's. */
  lease(): BrokerProcess;
  /** SIGKILL to the host and everything it started; settles once it has exited. */
  kill(): Promise<BrokerExit>;
}

export interface SpawnHostOptions {
  /** The host entry script (`src/broker/host.ts`, or its bundle). */
  entry: string;
  /** Where it runs; each node's worktree is passed to its loop. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where its own log (`host-<pid>.log`) goes. */
  logDir: string;
  /** How long past a stop's grace the host may take to confirm before it is killed whole. */
  marginMs: number;
  /** Nodes it runs at most. */
  capacity: number;
  /** Where its private directory is made (`../sandbox/private-tmp.ts`). */
  tmpRoot: string;
}

export function spawnHost(opts: SpawnHostOptions): AgentHost {
  // `SVC_HOST_CPU_PROF=<dir>`: each host writes a V8 CPU profile there when it exits (a lull,
  // or the daemon's close), to find what a node's loop costs its host.
  const profileDir = opts.env.SVC_HOST_CPU_PROF;
  const profile =
    profileDir === undefined || profileDir === ''
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const args = [
    '--disable-warning=ExperimentalWarning',
    // V8 grows a busy host's young generation by tens of MB and keeps those pages resident, which
    // each sandbox the host forks copies the page tables of. Capped at 4 MB, a host held ~25 MB
    // less anonymous memory (median; ~35 MB at its peak) for the same CPU per node; 1 MB cost more
    // CPU (more scavenges). Its forks were not measurably faster at load 2-3 (at load 5-8, by
    // about a third), so no time is claimed for it.
    `--max-semi-space-size=${HOST_SEMI_SPACE_MB}`,
    ...profile,
    opts.entry,
  ];
  // The host's private directory (`../sandbox/private-tmp.ts`): removed here once it has exited,
  // however it ended, and with all of `tmpRoot` when a daemon starts (a daemon killed with its
  // hosts could see to neither).
  const tmp = mkdtempSync(join(opts.tmpRoot, 'h-'));
  const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: { ...opts.env, [PRIVATE_TMP_ENV]: tmp },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) {
    removeTmp();
    throw new DaemonError('broker_spawn_failed', `could not start ${process.execPath}`);
  }
  let alive = true;
  // Its exit was reaped: its pid is free, and may be another process's by the time of a kill.
  let reaped = false;
  let capacity = opts.capacity;
  const exited = new Promise<BrokerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      reaped = true;
      resolve({ code, signal });
    });
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  // A host that dies makes a write fail (EPIPE): its exit tells the supervisor.
  child.stdin?.on('error', () => {});

  let ownLog: WriteStream | null = null;
  const own = (text: string) => {
    ownLog ??= openLog(join(opts.logDir, `host-${pid}.log`));
    ownLog?.write(text);
  };
  child.stdout?.on('data', own);
  child.stderr?.on('data', own);

  /** Leases not yet ended, launched (by node) or not. */
  const sinks = new Map<string, LeaseSink>();
  const unlaunched = new Set<LeaseSink>();
  const onReport = (line: string) => {
    const m = parseObject(line);
    if (m === null) return;
    if (typeof m.node_id === 'string' && typeof m.log === 'object' && m.log !== null) {
      sinks.get(m.node_id)?.log(`${JSON.stringify(m.log)}\n`);
    } else if (typeof m.ended === 'string') {
      const sink = sinks.get(m.ended);
      sinks.delete(m.ended);
      sink?.end(exitOf(String(m.kind)));
    }
  };
  const channel = child.stdio[HOST_CHANNEL_FD] as Readable | null;
  channel?.on('error', () => {});
  if (channel) readLines(channel, onReport);
  void exited.then((exit) => {
    alive = false;
    removeTmp();
    // Every node it still held ends with it: a crash, unless that node was being stopped.
    for (const sink of [...sinks.values(), ...unlaunched]) sink.end(exit);
    sinks.clear();
    unlaunched.clear();
    ownLog?.end();
  });

  let killing: Promise<BrokerExit> | null = null;
  const kill = () => {
    killing ??= (async () => {
      alive = false;
      // A profiling host first ends itself (its stdin closed: it drops its nodes and exits), so
      // V8 writes its profile, which a SIGKILL would lose; bounded, then killed all the same.
      if (profile.length > 0) {
        child.stdin?.end();
        await Promise.race([exited, sleep(PROFILE_EXIT_MS)]);
      }
      // Checked and sent in one synchronous run: no exit is reaped in between. What it started
      // dies with it (its launcher's parent-death signal, each sandbox's --die-with-parent).
      if (!reaped) signalAll([{ pid, ppid: 0, pgid: pid }, ...descendants(pid)], 'SIGKILL');
      return exited;
    })();
    return killing;
  };

  return {
    pid,
    exited,
    get alive() {
      return alive;
    },
    get capacity() {
      return capacity;
    },
    isolate() {
      capacity = Math.min(capacity, sinks.size + unlaunched.size);
    },
    get load() {
      return sinks.size + unlaunched.size;
    },
    lease() {
      if (!alive) throw new TypeError(`agent host ${pid} has exited`);
      return createLease({
        pid,
        exited,
        alive: () => alive,
        marginMs: opts.marginMs,
        send: (command) => child.stdin?.write(`${JSON.stringify(command)}\n`),
        hold: (sink) => unlaunched.add(sink),
        bind: (nodeId, sink) => {
          unlaunched.delete(sink);
          sinks.set(nodeId, sink);
        },
        release: (sink) => unlaunched.delete(sink),
        kill,
      });
    },
    kill,
  };
}

function openLog(file: string): WriteStream | null {
  try {
    const log = createWriteStream('', { fd: openSync(file, 'a', 0o600) });
    log.on('error', () => {});
    return log;
  } catch {
    return null; // a host's own lines are no node's record: lost rather than fatal
  }
}
