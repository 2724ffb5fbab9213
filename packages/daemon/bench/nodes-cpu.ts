/**
 * Where the machine's CPU goes while nodes run, read from /proc: the daemon, its agent hosts, and
 * the rest of the machine (the sandboxes: bubblewrap, executors, commands; kernel threads); and
 * how long the daemon's and the hosts' main threads were ready to run but waited for a CPU. With
 * 8 nodes kept active on 2 cores, a turn's gap is mostly such waits (each node's step queues
 * behind the other nodes' work), so the split says whose CPU a faster turn has to come from.
 *
 * The sandboxes are not counted apart: a sandbox's own parent is often gone before it ends (its
 * outer bubblewrap killed, its inner one reaped by init), and a process's CPU goes to its
 * parent's `cutime` only when that parent waits for it.
 */
import { readFileSync } from 'node:fs';
import { cpuMs, hostsOf, statFields } from './nodes-rss.ts';

/** USER_HZ: Linux reports CPU time in /proc in ticks of 10 ms. */
const TICK_MS = 10;

interface MainCpu {
  ownMs: number;
  /** Its main thread's time runnable but not running (schedstat); NaN where not kept. */
  waitMs: number;
}

export interface CpuSnapshot {
  /** Busy time of all CPUs together (/proc/stat: all but idle and iowait). */
  machineMs: number;
  daemon: MainCpu;
  /** What the daemon has reaped: the hosts that ended (esbuild's service too, once). */
  daemonReapedMs: number;
  hosts: Map<number, MainCpu>;
}

/** CPU used between two snapshots, in ms. */
export interface CpuSplit {
  machine: number;
  daemon: number;
  hosts: number;
  /** The daemon's main thread, runnable but waiting for a CPU. */
  daemonWait: number;
  /** The hosts' main threads together, likewise. */
  hostsWait: number;
}

export function cpuSnapshot(daemonPid: number): CpuSnapshot {
  const fields = statFields(daemonPid);
  const main = (pid: number): MainCpu => ({ ownMs: cpuMs(pid), waitMs: runQueueWaitMs(pid) });
  return {
    machineMs: machineBusyMs(),
    daemon: main(daemonPid),
    daemonReapedMs: fields === null ? 0 : (Number(fields[13]) + Number(fields[14])) * TICK_MS,
    hosts: new Map(hostsOf(daemonPid).map((pid) => [pid, main(pid)])),
  };
}

export function cpuSplit(before: CpuSnapshot, after: CpuSnapshot): CpuSplit {
  // A host that ended meanwhile is in the daemon's reaped time whole: less what it had used
  // before the run.
  let hosts = after.daemonReapedMs - before.daemonReapedMs;
  let hostsWait = 0;
  for (const [pid, now] of after.hosts) {
    hosts += now.ownMs - (before.hosts.get(pid)?.ownMs ?? 0);
    hostsWait += now.waitMs - (before.hosts.get(pid)?.waitMs ?? 0);
  }
  for (const [pid, was] of before.hosts) if (!after.hosts.has(pid)) hosts -= was.ownMs;
  return {
    machine: after.machineMs - before.machineMs,
    daemon: after.daemon.ownMs - before.daemon.ownMs,
    hosts,
    daemonWait: after.daemon.waitMs - before.daemon.waitMs,
    hostsWait,
  };
}

function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu user nice system idle iowait irq softirq steal …
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) *
    TICK_MS
  );
}

/** /proc/<pid>/schedstat's second field (ns waiting on a run queue) in ms; NaN without it. */
function runQueueWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return Number.NaN;
  }
}
