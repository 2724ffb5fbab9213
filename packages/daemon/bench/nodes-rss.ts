/**
 * Peak resident memory of the bench daemon and what it runs, sampled from /proc while a scenario
 * runs: the daemon itself, its direct children (brokers, spares included: they are memory held
 * for nodes), and everything below them (each node's sandbox: bubblewrap, its executor, the
 * commands).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface RssPeaks {
  daemonKb: number;
  brokersKb: number;
  sandboxesKb: number;
  /** The most direct children alive at one sample. */
  brokers: number;
}

/** VmRSS of `pid` in kB; 0 once it is gone. */
export function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Samples every `everyMs` until `stop()`, which answers the peaks. */
export function sampleRss(daemonPid: number, everyMs = 100): { stop(): RssPeaks } {
  const peaks: RssPeaks = { daemonKb: 0, brokersKb: 0, sandboxesKb: 0, brokers: 0 };
  const sample = () => {
    const children = new Map<number, number[]>();
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const ppid = parentOf(pid);
      if (ppid === null) continue;
      const list = children.get(ppid) ?? [];
      list.push(pid);
      children.set(ppid, list);
    }
    const brokers = children.get(daemonPid) ?? [];
    let below = 0;
    const stack = brokers.flatMap((b) => children.get(b) ?? []);
    // Bounded: a pid is visited once, and /proc lists finitely many.
    const seen = new Set<number>();
    while (stack.length > 0) {
      const pid = stack.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      below += rssKb(pid);
      stack.push(...(children.get(pid) ?? []));
    }
    const brokersKb = brokers.reduce((sum, pid) => sum + rssKb(pid), 0);
    peaks.daemonKb = Math.max(peaks.daemonKb, rssKb(daemonPid));
    peaks.brokersKb = Math.max(peaks.brokersKb, brokersKb);
    peaks.sandboxesKb = Math.max(peaks.sandboxesKb, below);
    peaks.brokers = Math.max(peaks.brokers, brokers.length);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

/** User plus system CPU time of `pid` so far, in ms (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  if (fields === null) return 0;
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((p) => Number.isInteger(p) && parentOf(p) === pid);
}

/** The fields of /proc/<pid>/stat after the command name: state is [0], ppid [1]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  const fields = statFields(pid);
  return fields === null ? null : Number(fields[1]);
}
