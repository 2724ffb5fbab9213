/**
 * Resident memory of the bench daemon and what it runs, read from /proc: the daemon itself, its
 * direct Node children (brokers or agent hosts, spares included: memory held for nodes) and
 * everything else below it (each node's sandbox: bubblewrap, its executor, the commands). The
 * layout is read from the process tree, not assumed: one process per node or one host for many
 * come out the same way.
 *
 * Each process is counted twice: RSS (VmRSS: every page it maps, shared ones included, so the
 * Node binary's text is counted once per process) and PSS (smaps_rollup: each shared page
 * divided among the processes that map it, so the sum over processes is what the machine pays).
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** The Node binary the bench and its daemon run (the daemon's hosts run it too). */
const NODE = realpathSync(process.execPath);

/** Resident memory in kB. */
export interface Mem {
  rssKb: number;
  pssKb: number;
}

export interface RssPeaks {
  daemonKb: number;
  brokersKb: number;
  sandboxesKb: number;
  daemonPssKb: number;
  brokersPssKb: number;
  sandboxesPssKb: number;
  /** The most direct children alive at one sample. */
  brokers: number;
}

/** One look at the daemon's tree, each class summed. */
export interface TreeMem {
  daemon: Mem;
  /** Direct children running Node (brokers, agent hosts, spares). */
  hosts: Mem;
  /** Everything else below the daemon, less `commands`. */
  sandboxes: Mem;
  /** Processes below the daemon whose command line `isCommand` picks (the work itself). */
  commands: Mem;
  hostCount: number;
  sandboxCount: number;
  commandCount: number;
  /** Processes whose smaps_rollup could not be read (their PSS counts as 0). */
  unreadable: number;
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

/** RSS and PSS of `pid` in kB (PSS -1 when smaps_rollup is not readable); 0 once it is gone. */
export function memOf(pid: number): Mem {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return {
      rssKb: Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0),
      pssKb: Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0),
    };
  } catch {
    const rss = rssKb(pid);
    return { rssKb: rss, pssKb: rss === 0 ? 0 : -1 };
  }
}

/** The command line of `pid`, its arguments joined by spaces; '' once it is gone. */
export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every process's children, from one pass over /proc. */
function childrenMap(): Map<number, number[]> {
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
  return children;
}

/**
 * The daemon's direct Node children: brokers or agent hosts, spares included. esbuild's service
 * (the broker bundle's build) is a child too, but no host; nor is a sandbox the daemon started
 * itself (bubblewrap, an executor), which counts with the sandboxes.
 */
function isHost(pid: number): boolean {
  try {
    // The executable, not the name: a host may set its process title.
    return readlinkSync(`/proc/${pid}/exe`) === NODE;
  } catch {
    return commOf(pid) === 'node';
  }
}

/** Everything below `root`. */
function descendants(root: number, children: Map<number, number[]>): number[] {
  const found: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  // Bounded: a pid is visited once, and /proc lists finitely many.
  const seen = new Set<number>();
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * One look at the daemon's tree; `isCommand` picks the work (e.g. the bench's `sleep`). PSS
 * costs the kernel a walk of each process's pages (about 10 ms for a broker on a busy 2-core
 * machine), so `withPss: false` reads RSS alone (PSS then 0).
 */
export function treeMem(
  daemonPid: number,
  isCommand: (cmdline: string) => boolean,
  withPss = true,
): TreeMem {
  const children = childrenMap();
  const zero = (): Mem => ({ rssKb: 0, pssKb: 0 });
  const tree: TreeMem = {
    daemon: zero(),
    hosts: zero(),
    sandboxes: zero(),
    commands: zero(),
    hostCount: 0,
    sandboxCount: 0,
    commandCount: 0,
    unreadable: 0,
  };
  const add = (into: Mem, pid: number) => {
    const mem = withPss ? memOf(pid) : { rssKb: rssKb(pid), pssKb: 0 };
    if (mem.pssKb < 0) tree.unreadable++;
    into.rssKb += mem.rssKb;
    into.pssKb += Math.max(0, mem.pssKb);
  };
  add(tree.daemon, daemonPid);
  const hosts = new Set(hostsOf(daemonPid, children));
  for (const pid of descendants(daemonPid, children)) {
    if (commOf(pid) === 'esbuild') continue;
    if (hosts.has(pid)) {
      tree.hostCount++;
      add(tree.hosts, pid);
    } else if (isCommand(cmdlineOf(pid))) {
      tree.commandCount++;
      add(tree.commands, pid);
    } else {
      tree.sandboxCount++;
      add(tree.sandboxes, pid);
    }
  }
  return tree;
}

/** The processes left below the daemon (hosts, sandboxes, commands), esbuild's service aside. */
export function processesBelow(daemonPid: number): number {
  return descendants(daemonPid, childrenMap()).filter((pid) => commOf(pid) !== 'esbuild').length;
}

/** The processes below the daemon whose command line `match` picks. */
export function pidsBelow(daemonPid: number, match: (cmdline: string) => boolean): number[] {
  return descendants(daemonPid, childrenMap()).filter((pid) => match(cmdlineOf(pid)));
}

/**
 * Samples RSS every `everyMs` and PSS every `pssEveryMs` (far costlier to read, and read by this
 * process on the machine it measures) until `stop()`, which answers the peaks.
 */
export function sampleRss(
  daemonPid: number,
  everyMs = 100,
  pssEveryMs = 5000,
): { stop(): RssPeaks } {
  const peaks: RssPeaks = {
    daemonKb: 0,
    brokersKb: 0,
    sandboxesKb: 0,
    daemonPssKb: 0,
    brokersPssKb: 0,
    sandboxesPssKb: 0,
    brokers: 0,
  };
  let pssAt = 0;
  const sample = () => {
    const withPss = performance.now() - pssAt >= pssEveryMs;
    if (withPss) pssAt = performance.now();
    const tree = treeMem(daemonPid, () => false, withPss);
    peaks.daemonKb = Math.max(peaks.daemonKb, tree.daemon.rssKb);
    peaks.brokersKb = Math.max(peaks.brokersKb, tree.hosts.rssKb);
    peaks.sandboxesKb = Math.max(peaks.sandboxesKb, tree.sandboxes.rssKb);
    peaks.daemonPssKb = Math.max(peaks.daemonPssKb, tree.daemon.pssKb);
    peaks.brokersPssKb = Math.max(peaks.brokersPssKb, tree.hosts.pssKb);
    peaks.sandboxesPssKb = Math.max(peaks.sandboxesPssKb, tree.sandboxes.pssKb);
    peaks.brokers = Math.max(peaks.brokers, tree.hostCount);
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
  return childrenMap().get(pid) ?? [];
}

/** The daemon's brokers or hosts (direct Node children, spares included); not esbuild's service. */
export function hostsOf(daemonPid: number, children = childrenMap()): number[] {
  return (children.get(daemonPid) ?? []).filter((pid) => isHost(pid));
}

/** The executable's name (/proc/<pid>/stat's second field); '' once it is gone. */
function commOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return '';
  }
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
