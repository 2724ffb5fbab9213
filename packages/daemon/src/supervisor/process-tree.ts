/**
 * The processes a broker started. A broker runs each `bash` command in a process group of its
 * own (so a timeout kills the whole command), which a signal to the broker's group does not
 * reach; stopping a node therefore walks the broker's descendants and signals their groups too.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isAlive, procStat } from '../lifecycle/proc-stat.ts';
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
 * Where the pids handed out from now on begin, read at a node's launch: the last pid given in
 * the daemon's pid namespace and the tasks that hold one (`/proc/loadavg`), and the forks made so
 * far on the whole machine (`/proc/stat`). Every process that carries the node's mark is forked
 * after its launch, so a scan for the mark at the node's end reads only the processes whose pid
 * was handed out since (`sinceWindow`), not every process of the machine. `null` where Linux
 * does not tell.
 */
export interface PidWindow {
  lastPid: number;
  tasks: number;
  forks: number;
}

export function pidWindow(): PidWindow | null {
  try {
    // `0.91 1.79 1.82 2/300 8313`: runnable/all tasks (threads hold pids too), the last pid.
    const load = /\d+\/(\d+) (\d+)\s*$/.exec(readFileSync('/proc/loadavg', 'latin1'));
    const forks = /^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    if (load === null || forks === null) return null;
    return { lastPid: Number(load[2]), tasks: Number(load[1]), forks: Number(forks[1]) };
  } catch {
    return null;
  }
}

let pidMax: number | null | undefined;

function readPidMax(): number | null {
  try {
    const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1'));
    return Number.isSafeInteger(max) && max > 0 ? max : null;
  } catch {
    return null;
  }
}

/**
 * Of `names` (the pids `/proc` lists), those handed out after `from` was read. Pids are handed
 * out in a ring, upwards from the last one given and skipping those in use, wrapping at
 * `pid_max`: they are the ring's arc from `from`'s last pid to the last pid now, as long as the
 * ring cannot have come round past `from` again. It moves at most one place per fork plus one
 * per pid skipped, and a skipped pid was held by a task of then or one forked since: so only
 * while twice the forks since (the whole machine's, more than this namespace's) and the tasks
 * then stay under half the ring. Else, and without a window, all of `names`.
 */
function sinceWindow(names: string[], from: PidWindow | null | undefined): string[] {
  if (from == null) return names;
  const now = pidWindow();
  if (pidMax === undefined) pidMax = readPidMax();
  if (now === null || pidMax === null) return names;
  if (2 * (now.forks - from.forks) + from.tasks >= pidMax / 2) return names;
  const after = from.lastPid;
  const upTo = now.lastPid;
  return names.filter((name) => {
    const pid = Number(name);
    return upTo >= after ? pid > after && pid <= upTo : pid > after || pid <= upTo;
  });
}

/**
 * Every process whose environment holds the mark of the broker `pid` of `nodeId` (`broker-tag.ts`),
 * wherever it now hangs in the tree. Read from `/proc`; without it, none: there `descendants`
 * is all there is. With `since` (the window read at the node's launch), only the processes
 * forked after it are read.
 */
export function marked(nodeId: string, pid: number, since?: PidWindow | null): ProcessInfo[] {
  const entry = markEntry(nodeId, pid);
  return sinceWindow(procPids() ?? [], since).flatMap((name) => {
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
export async function markedInTurns(
  nodeId: string,
  pid: number,
  since?: PidWindow | null,
): Promise<ProcessInfo[]> {
  const entry = markEntry(nodeId, pid);
  const names = sinceWindow(procPids() ?? [], since).filter((name) => Number(name) !== process.pid);
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
  if (!entryStarts(environ, entry)) return [];
  const info = statOf(name);
  return info === null ? [] : [info];
}

/**
 * Whether an entry of `environ` (`/proc/<pid>/environ`: `NAME=value\0` each) starts with `start`:
 * at the very start, or right after another entry's NUL, never inside another entry's value.
 */
export function entryStarts(environ: Buffer, start: Buffer): boolean {
  for (let at = environ.indexOf(start); at >= 0; at = environ.indexOf(start, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/**
 * Sends `signal` to each process, and to each group one of them leads or whose leader is gone
 * (what a command left in its group after its shell exited); gone ones are skipped. A group led
 * by a live process not in the list is not theirs to end: a pid read long ago may name another
 * process by now (pids wrap at 32,768 on many machines, within minutes of a busy test suite),
 * whose children share its group, as every child spawned without `detached` does; a SIGKILL to
 * such a group took down a whole CI run. For the same reason, never this process or its own
 * group, whatever the list says.
 */
export function signalAll(processes: readonly ProcessInfo[], signal: NodeJS.Signals): void {
  const targets = new Set<number>();
  const listed = new Set(processes.map((p) => p.pid));
  const decided = new Set<number>();
  for (const p of processes) {
    targets.add(p.pid);
    // Decided once a group, either way: its leader is listed, or gone.
    if (p.pgid <= 1 || decided.has(p.pgid)) continue;
    decided.add(p.pgid);
    if (listed.has(p.pgid) || !isAlive(p.pgid)) targets.add(-p.pgid);
  }
  targets.delete(process.pid);
  const own = ownGroup();
  if (own !== null) targets.delete(-own);
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone (ESRCH), or never ours to signal.
    }
  }
}

let group: number | null | undefined;
/** This process's group (from `/proc`), or `null` where Linux does not tell. */
function ownGroup(): number | null {
  group ??= procStat(String(process.pid))?.pgid ?? null;
  return group;
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
