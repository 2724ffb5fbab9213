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
import { readFile } from 'node:fs/promises';

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
    return rollupMem(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  } catch {
    const rss = rssKb(pid);
    return { rssKb: rss, pssKb: rss === 0 ? 0 : -1 };
  }
}

function rollupMem(rollup: string): Mem {
  return {
    rssKb: Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0),
    pssKb: Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0),
  };
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

/** The daemon's tree sorted into its parts, as pids. */
interface TreePids {
  hosts: number[];
  sandboxes: number[];
  commands: number[];
}

function classify(daemonPid: number, isCommand: (cmdline: string) => boolean): TreePids {
  const children = childrenMap();
  const hosts = new Set(hostsOf(daemonPid, children));
  const parts: TreePids = { hosts: [], sandboxes: [], commands: [] };
  for (const pid of descendants(daemonPid, children)) {
    if (commOf(pid) === 'esbuild') continue;
    if (hosts.has(pid)) parts.hosts.push(pid);
    else if (isCommand(cmdlineOf(pid))) parts.commands.push(pid);
    else parts.sandboxes.push(pid);
  }
  return parts;
}

/** Sums each part's memory, from `mems` (read beforehand; PSS -1: unreadable). */
function sumParts(daemonPid: number, parts: TreePids, mems: Map<number, Mem>): TreeMem {
  const zero = (): Mem => ({ rssKb: 0, pssKb: 0 });
  const tree: TreeMem = {
    daemon: zero(),
    hosts: zero(),
    sandboxes: zero(),
    commands: zero(),
    hostCount: parts.hosts.length,
    sandboxCount: parts.sandboxes.length,
    commandCount: parts.commands.length,
    unreadable: 0,
  };
  const add = (into: Mem, pid: number) => {
    const mem = mems.get(pid) ?? { rssKb: 0, pssKb: 0 };
    if (mem.pssKb < 0) tree.unreadable++;
    into.rssKb += mem.rssKb;
    into.pssKb += Math.max(0, mem.pssKb);
  };
  add(tree.daemon, daemonPid);
  for (const pid of parts.hosts) add(tree.hosts, pid);
  for (const pid of parts.sandboxes) add(tree.sandboxes, pid);
  for (const pid of parts.commands) add(tree.commands, pid);
  return tree;
}

const allPids = (daemonPid: number, parts: TreePids) => [
  daemonPid,
  ...parts.hosts,
  ...parts.sandboxes,
  ...parts.commands,
];

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
  const parts = classify(daemonPid, isCommand);
  const read = withPss ? memOf : (pid: number): Mem => ({ rssKb: rssKb(pid), pssKb: 0 });
  const mems = new Map(allPids(daemonPid, parts).map((pid) => [pid, read(pid)] as const));
  return sumParts(daemonPid, parts, mems);
}

/**
 * The same look with every PSS read off the event loop (libuv's thread pool), for a sampler
 * that must not stall the bench's own requests while the kernel walks the pages.
 */
export async function treeMemAsync(
  daemonPid: number,
  isCommand: (cmdline: string) => boolean,
): Promise<TreeMem> {
  const parts = classify(daemonPid, isCommand);
  const mems = new Map<number, Mem>();
  for (const pid of allPids(daemonPid, parts)) mems.set(pid, await memOfAsync(pid));
  return sumParts(daemonPid, parts, mems);
}

async function memOfAsync(pid: number): Promise<Mem> {
  try {
    return rollupMem(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
  } catch {
    const rss = rssKb(pid);
    return { rssKb: rss, pssKb: rss === 0 ? 0 : -1 };
  }
}

/**
 * The processes left below the daemon (hosts, sandboxes, commands), esbuild's service aside, and
 * a host's sandbox launcher (a part of its host: src/sandbox/launcher.ts), which outlives no host.
 */
export function processesBelow(daemonPid: number): number {
  return descendants(daemonPid, childrenMap()).filter(
    (pid) => commOf(pid) !== 'esbuild' && !commOf(pid).startsWith('sandbox-launch'),
  ).length;
}

/** The processes below the daemon whose command line `match` picks. */
export function pidsBelow(daemonPid: number, match: (cmdline: string) => boolean): number[] {
  return descendants(daemonPid, childrenMap()).filter((pid) => match(cmdlineOf(pid)));
}

/**
 * Samples RSS every `everyMs` and PSS every `pssEveryMs` (far costlier to read, and read by this
 * process on the machine it measures) until `stop()`, which answers the peaks once the last
 * PSS pass is in.
 */
export function sampleRss(
  daemonPid: number,
  everyMs = 100,
  pssEveryMs = 5000,
): { stop(): Promise<RssPeaks> } {
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
  let pssPass: Promise<void> | null = null;
  const sample = () => {
    const tree = treeMem(daemonPid, () => false, false);
    peaks.daemonKb = Math.max(peaks.daemonKb, tree.daemon.rssKb);
    peaks.brokersKb = Math.max(peaks.brokersKb, tree.hosts.rssKb);
    peaks.sandboxesKb = Math.max(peaks.sandboxesKb, tree.sandboxes.rssKb);
    peaks.brokers = Math.max(peaks.brokers, tree.hostCount);
    // One PSS pass at a time, off the event loop: a blocking one stalled the bench's requests
    // for seconds on a busy machine, long enough for the daemon to drop its kept-alive sockets.
    if (pssPass !== null || performance.now() - pssAt < pssEveryMs) return;
    pssAt = performance.now();
    pssPass = treeMemAsync(daemonPid, () => false).then((t) => {
      peaks.daemonPssKb = Math.max(peaks.daemonPssKb, t.daemon.pssKb);
      peaks.brokersPssKb = Math.max(peaks.brokersPssKb, t.hosts.pssKb);
      peaks.sandboxesPssKb = Math.max(peaks.sandboxesPssKb, t.sandboxes.pssKb);
      pssPass = null;
    });
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await pssPass;
      pssAt = 0;
      sample();
      await pssPass;
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
export function statFields(pid: number): string[] | null {
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
