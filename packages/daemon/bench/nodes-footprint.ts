/**
 * What nodes hold in memory (`nodes.ts`), read from the daemon's process tree whatever its layout
 * (a broker per node, or hosts running many nodes' loops):
 * - active: N nodes at once, each in a long `sleep` (the work, counted apart), on a daemon of
 *   concurrency N; the whole tree sampled while all N are in it;
 * - parked: a daemon's own memory (after a full GC) with no node parked and with many parked
 *   (`yield`), the processes it still runs and its CPU while nothing happens.
 */
import { spawn } from 'node:child_process';
import { HEAP_RELEASE_QUIET_MS } from '../src/lifecycle/heap-release.ts';
import { type DaemonHeap, startBenchDaemon } from './nodes-client.ts';
import {
  cmdlineOf,
  cpuMs,
  hostsOf,
  type Mem,
  memOf,
  pidsBelow,
  processesBelow,
  type TreeMem,
  treeMem,
} from './nodes-rss.ts';
import { idle, runTurns, scriptedNode } from './nodes-turns.ts';

/** The command each active node runs: long enough to outlast the sampling; cancelled after it. */
const SLEEP_S = 299;
const isSleep = (cmdline: string) => new RegExp(`(^|/)sleep ${SLEEP_S}$`).test(cmdline);
/** The command and its `/bin/sh -c` wrapper, if the shell did not exec it. */
const isCommand = (cmdline: string) => cmdline.includes(`sleep ${SLEEP_S}`);
const ACTIVE_SCRIPT = [
  { tool_calls: [{ name: 'bash', input: { command: `sleep ${SLEEP_S}`, timeout_ms: 600_000 } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'slept' } }] },
];
const PARK_SCRIPT = [{ tool_calls: [{ name: 'yield', input: { reason: 'bench: parked' } }] }];
const DONE_SCRIPT = [{ tool_calls: [{ name: 'submit', input: { summary: 'warm-up' } }] }];

/** Memory is read over the daemon's quiet spell and 2 s more. */
export const MEM_WINDOW_MS = HEAP_RELEASE_QUIET_MS + 2_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const total = (t: TreeMem, key: keyof Mem) => t.daemon[key] + t.hosts[key] + t.sandboxes[key];

export interface ActiveFootprint {
  /** The tree before any node (the daemon alone, esbuild's service aside). */
  idle: TreeMem;
  /** The tree while all `active` nodes ran their command: the sample of highest PSS. */
  busy: TreeMem;
  /** Create of the first → all `active` commands running (ms). */
  inFlightMs: number;
  /** Samples taken while all were in flight. */
  samples: number;
}

/**
 * `active` nodes at once on a daemon of its own (concurrency `active`), each in its `sleep`:
 * sampled every 250 ms for `sampleMs` once all are in it, keeping the sample of highest PSS
 * (commands aside); then the nodes are cancelled and the daemon stopped.
 */
export async function activeFootprint(
  home: string,
  active: number,
  sampleMs: number,
): Promise<ActiveFootprint> {
  const daemon = await startBenchDaemon(home, active);
  const pid = daemon.child.pid!;
  const seen = new Set<number>();
  try {
    await daemon.gc();
    const before = treeMem(pid, isCommand);
    const ids: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < active; i++) {
      const body = scriptedNode(`bench active ${i}`, ACTIVE_SCRIPT);
      ids.push((await daemon.call('/v1/nodes', { method: 'POST', body })).id as string);
    }
    const running = () => treeMem(pid, isSleep, false).commandCount;
    // Bounded by the command's own time: past it, the first would end before the last begins.
    let most = 0;
    for (let now = running(); now < active; now = running()) {
      most = Math.max(most, now);
      if (performance.now() - t0 > (SLEEP_S - 60) * 1000) {
        throw new Error(`at most ${most} of ${active} nodes ran their command at once`);
      }
      await pause(100);
    }
    const inFlightMs = performance.now() - t0;
    // Each look reads every process's PSS, slow with many: the window is wall time, with
    // at least two looks in it.
    let busy = treeMem(pid, isCommand);
    let samples = 1;
    const from = performance.now();
    while ((performance.now() - from < sampleMs || samples < 2) && running() >= active) {
      await pause(250);
      const now = treeMem(pid, isCommand);
      samples++;
      if (total(now, 'pssKb') > total(busy, 'pssKb')) busy = now;
    }
    for (const p of pidsBelow(pid, isSleep)) seen.add(p);
    for (const id of ids) {
      await daemon.call(`/v1/nodes/${id}/cancel`, { method: 'POST', body: { reason: 'bench' } });
    }
    for (let i = 0; i < 600 && treeMem(pid, isSleep, false).commandCount > 0; i++) await pause(100);
    return { idle: before, busy, inFlightMs, samples };
  } finally {
    await daemon.stop();
    // A command a cancel missed must not outlive the bench: only the bench's own sleeps.
    for (const p of seen) if (isSleep(cmdlineOf(p))) process.kill(p, 'SIGKILL');
  }
}

export interface ParkedFootprint {
  /** The daemon's own memory after a GC, with none parked (warm: a few nodes run to done). */
  none: Mem;
  /** The same with `parked` nodes parked. */
  parked: Mem;
  /** Create of the first → the last parked (ms). */
  parkMs: number;
  /** Processes below the daemon with none parked, and with all parked: hosts, the rest. */
  hostsNone: number;
  hostsParked: number;
  othersParked: number;
  /** CPU of the daemon holding them over `idleS` seconds, and of a bare waiting Node process. */
  cpuMs: number;
  bareCpuMs: number;
  /** The daemon's heap after the GC with none and with all parked. */
  heapNone: DaemonHeap;
  heapParked: DaemonHeap;
}

/**
 * A daemon of its own (concurrency `concurrency`): warmed by `concurrency` nodes run to done,
 * then its memory with none parked; `parked` nodes that park at once (`yield`), then its memory
 * holding them, the processes it still runs, and its CPU over `idleS` seconds.
 */
export async function parkedFootprint(
  home: string,
  parked: number,
  concurrency: number,
  idleS: number,
): Promise<ParkedFootprint> {
  const daemon = await startBenchDaemon(home, concurrency);
  const pid = daemon.child.pid!;
  try {
    await runTurns(daemon, home, concurrency, 1, DONE_SCRIPT, 'done', { readBack: false });
    await idle(daemon);
    await daemon.gc();
    const none = await leastMem(pid);
    // The heap as the window left it (the daemon's release included), after one more GC.
    const heapNone = await daemon.gc();
    const hostsNone = hostsOf(pid).length;
    const run = await runTurns(daemon, home, parked, 1, PARK_SCRIPT, 'waiting', {
      readBack: false,
    });
    if (run.failed > 0) throw new Error(`${run.failed} of ${parked} nodes did not park in time`);
    await idle(daemon);
    await daemon.gc();
    const held = await leastMem(pid);
    const heapParked = await daemon.gc();
    const hostsParked = hostsOf(pid).length;
    const othersParked = processesBelow(pid) - hostsParked;

    const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
    const before = [cpuMs(pid), cpuMs(bare.pid!)] as const;
    await pause(idleS * 1000);
    const cpu = cpuMs(pid) - before[0];
    const bareCpu = cpuMs(bare.pid!) - before[1];
    bare.kill('SIGKILL');
    return {
      none,
      parked: held,
      parkMs: run.wallMs,
      hostsNone,
      hostsParked,
      othersParked,
      cpuMs: cpu,
      bareCpuMs: bareCpu,
      heapNone,
      heapParked,
    };
  } finally {
    await daemon.stop();
  }
}

/**
 * The least RSS and PSS of `pid` over `MEM_WINDOW_MS` (every 200 ms): what stays once the run is
 * over. The window outlasts the daemon's quiet spell, after which it gives back what the run left
 * resident (`src/lifecycle/heap-release.ts`); the bench's own `gc` line is no request, so it does
 * not start the spell again.
 */
export async function leastMem(pid: number): Promise<Mem> {
  const least = memOf(pid);
  for (let i = 0; i < MEM_WINDOW_MS / 200; i++) {
    await pause(200);
    const now = memOf(pid);
    least.rssKb = Math.min(least.rssKb, now.rssKb);
    least.pssKb = Math.min(least.pssKb, now.pssKb);
  }
  return least;
}
