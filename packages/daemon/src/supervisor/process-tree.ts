/**
 * The processes a broker started. A broker runs each `bash` command in a process group of its
 * own (so a timeout kills the whole command), which a signal to the broker's group does not
 * reach; stopping a node therefore walks the broker's descendants and signals their groups too.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { procStat } from '../lifecycle/proc-stat.ts';
import { BROKER_TAG_ENV, brokerTag } from './broker-tag.ts';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
}

/** Every process below `root` (children, grandchildren, …), read from `/proc` or `ps`. */
export function descendants(root: number): ProcessInfo[] {
  const byParent = new Map<number, ProcessInfo[]>();
  for (const info of processTable()) {
    const siblings = byParent.get(info.ppid) ?? [];
    siblings.push(info);
    byParent.set(info.ppid, siblings);
  }
  const found: ProcessInfo[] = [];
  const queue = [root];
  // Bounded: a pid appears once in the table, so the walk visits each at most once.
  for (let i = 0; i < queue.length; i++) {
    for (const child of byParent.get(queue[i]!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * Every process whose environment holds the mark of the broker `pid` of `nodeId` (`broker-tag.ts`),
 * wherever it now hangs in the tree. Read from `/proc`; without it, none: there `descendants`
 * is all there is.
 */
export function marked(nodeId: string, pid: number): ProcessInfo[] {
  const entry = markEntry(nodeId, pid);
  return (procPids() ?? []).flatMap((name) => {
    if (Number(name) === process.pid) return [];
    try {
      return markedOne(name, readFileSync(`/proc/${name}/environ`), entry);
    } catch {
      return []; // gone, or another user's
    }
  });
}

/** How many `/proc/<pid>/environ` reads `markedInTurns` makes in one turn of the event loop. */
const READS_A_TURN = 32;

/**
 * `marked`, a slice of the processes each turn of the event loop. Each read of another process's
 * environment waits on that process's memory map, 0.1 to 0.5 ms on a busy machine: a scan of a
 * few hundred processes held the daemon's event loop (every answer and event stream) for up to
 * 120 ms a broker exit. In slices the reads cost what they did (the thread pool's round trips
 * cost more), and the loop turns between them.
 */
export async function markedInTurns(nodeId: string, pid: number): Promise<ProcessInfo[]> {
  const entry = markEntry(nodeId, pid);
  const names = (procPids() ?? []).filter((name) => Number(name) !== process.pid);
  const found: ProcessInfo[] = [];
  // Bounded: each turn reads the next slice of a list read once.
  for (let i = 0; i < names.length; i += READS_A_TURN) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const name of names.slice(i, i + READS_A_TURN)) {
      try {
        found.push(...markedOne(name, readFileSync(`/proc/${name}/environ`), entry));
      } catch {
        // gone, or another user's
      }
    }
  }
  return found;
}

function markEntry(nodeId: string, pid: number): Buffer {
  return Buffer.from(`${BROKER_TAG_ENV}=${brokerTag(nodeId, pid)}\0`);
}

/** The process `name` when its environment holds `entry`, whole. */
function markedOne(name: string, environ: Buffer, entry: Buffer): ProcessInfo[] {
  const at = environ.indexOf(entry);
  // The whole entry: `NAME=value\0` at the start or right after another entry's NUL.
  if (at < 0 || (at > 0 && environ[at - 1] !== 0)) return [];
  const info = statOf(name);
  return info === null ? [] : [info];
}

/** Sends `signal` to each process and to each of their process groups; gone ones are skipped. */
export function signalAll(processes: readonly ProcessInfo[], signal: NodeJS.Signals): void {
  const targets = new Set<number>();
  for (const p of processes) {
    targets.add(p.pid);
    if (p.pgid > 1) targets.add(-p.pgid);
  }
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone (ESRCH), or never ours to signal.
    }
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function processTable(): ProcessInfo[] {
  const pids = procPids();
  if (pids === null) return psTable();
  return pids.flatMap((name) => {
    const info = statOf(name);
    return info === null ? [] : [info];
  });
}

/** The pids `/proc` lists, or `null` where there is no `/proc`. */
function procPids(): string[] | null {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
}

/** One process's ids from `/proc/<pid>/stat`, or `null` when it is gone. */
function statOf(pid: string): ProcessInfo | null {
  const stat = procStat(pid);
  return stat === null ? null : { pid: Number(pid), ppid: stat.ppid, pgid: stat.pgid };
}

function psTable(): ProcessInfo[] {
  const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
      return { pid: pid!, ppid: ppid!, pgid: pgid! };
    });
}
