/**
 * Bounds of one confined command's processes and memory, where the host lets this user set them:
 * a control group of its own under the daemon's (cgroup v1's `pids` and `memory` hierarchies, as
 * root has them writable; or a cgroup v2 tree this user was delegated). A fork bomb then meets
 * `pids.max`, a runaway build the memory bound, and the machine keeps answering. Where no group
 * can be made, a user other than root is still bounded in processes: `RLIMIT_NPROC` set inside
 * the sandbox's own user namespace counts only the sandbox's processes (Linux ≥ 5.14 counts it
 * per user namespace); root is exempt from it, which is why root needs the groups.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../lifecycle/proc-stat.ts';

/** Where a command's groups are made: one directory per controller. */
export interface CgroupBase {
  kind: 'v1' | 'v2';
  /** v1: the `pids` and `memory` parents; v2: the one parent (both controllers in it). */
  pids: string;
  memory: string | null;
}

/** A command's own groups: where its first process joins them, and how to take them down. */
export interface CommandGroups {
  /**
   * The files the command's first process writes `0` to (itself) to join each group: cgroup v1's
   * `tasks`, v2's `cgroup.procs`. In v1, moving the writing thread alone (`tasks`, `0`) skips the
   * kernel's global lock of every thread group, whose writer waits out an RCU grace period (3–9
   * ms a join here); the process is one thread then, so it is the whole process that moves, and
   * all it starts is born inside. v2 moves a thread only in threaded groups: `cgroup.procs`.
   */
  join: string[];
  /** Kills what is left in them and removes them (best effort: the next start sweeps the rest). */
  remove(): Promise<void>;
}

/** Under the daemon's own group: `svc-sandbox/<key>/<command>`, the key one per daemon home. */
const PARENT = 'svc-sandbox';

/**
 * Finds (and makes) the parent groups, or says why there are none. Tried once at the daemon's
 * start; the brokers are handed the answer.
 */
export function detectCgroups(key: string): { base: CgroupBase } | { reason: string } {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  } catch {
    return { reason: 'no /proc/self/cgroup' };
  }
  const own = new Map<string, string>();
  for (const line of lines) {
    const [, controllers = '', path = '/'] = line.split(':');
    for (const c of controllers.split(',')) own.set(c, path);
  }
  const v1 = (controller: string) => {
    const path = own.get(controller);
    if (path === undefined) return null;
    const dir = join('/sys/fs/cgroup', controller, path, PARENT, key);
    try {
      mkdirSync(dir, { recursive: true });
      probeWritable(dir, controller === 'pids' ? 'pids.max' : 'memory.limit_in_bytes');
      return dir;
    } catch {
      return null;
    }
  };
  const pids = v1('pids');
  if (pids !== null) return { base: { kind: 'v1', pids, memory: v1('memory') } };
  // cgroup v2: a group below the daemon's own needs the daemon's group to hand down `pids` and
  // `memory`, which a group holding processes (the daemon's) may not do unless it is a
  // delegated, threaded or empty parent. Tried, not assumed.
  const unified = own.get('');
  if (unified !== undefined) {
    const parent = join('/sys/fs/cgroup', unified, PARENT);
    const dir = join(parent, key);
    // A few tries: another daemon's start may remove `dir`, empty, between two steps.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        mkdirSync(dir, { recursive: true });
        appendFileSync(join(parent, 'cgroup.subtree_control'), '+pids +memory');
        appendFileSync(join(dir, 'cgroup.subtree_control'), '+pids +memory');
        probeWritable(dir, 'pids.max');
        return { base: { kind: 'v2', pids: dir, memory: dir } };
      } catch {
        // Not delegated to this user: no groups.
      }
    }
  }
  return { reason: 'no writable cgroup (pids) for this user' };
}

/**
 * A throwaway child proves the limit file can be written. Made with its parent, should another
 * daemon's start have removed that (empty) since: the probe then keeps it.
 */
function probeWritable(dir: string, file: string): void {
  const probe = join(dir, `probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  try {
    appendFileSync(join(probe, file), '64');
  } finally {
    rmdirSync(probe);
  }
}

/** Makes the groups of one command, named `name`, with its bounds. Throws when it cannot. */
export function makeGroups(
  base: CgroupBase,
  name: string,
  limits: { pids: number; memoryBytes: number },
): CommandGroups {
  const made: string[] = [];
  const pidsDir = join(base.pids, name);
  mkdirUnder(base, pidsDir);
  made.push(pidsDir);
  try {
    appendFileSync(join(pidsDir, 'pids.max'), String(limits.pids));
    if (base.kind === 'v2') {
      appendFileSync(join(pidsDir, 'memory.max'), String(limits.memoryBytes));
      appendFileSync(join(pidsDir, 'memory.swap.max'), '0');
    } else if (base.memory !== null) {
      const memDir = join(base.memory, name);
      mkdirUnder(base, memDir);
      made.push(memDir);
      appendFileSync(join(memDir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    }
  } catch (error) {
    void removeGroups(made);
    throw error;
  }
  return {
    join: made.map((dir) => join(dir, base.kind === 'v1' ? 'tasks' : 'cgroup.procs')),
    remove: () => removeGroups(made),
  };
}

const bases = (base: CgroupBase) => new Set([base.pids, base.memory].filter((d) => d !== null));

/**
 * `mkdir` of a command's group, its parent made again first if it is gone: a daemon of another
 * home removes the parents it finds empty (`sweepOthers`), this one's too between its commands
 * (and may again between the two `mkdir`s, hence the few tries).
 */
function mkdirUnder(base: CgroupBase, dir: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      mkdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw error;
    }
    for (const parent of bases(base)) mkdirSync(parent, { recursive: true });
    // v2: a group hands its children only the controllers it is told to.
    if (base.kind === 'v2') {
      appendFileSync(join(base.pids, 'cgroup.subtree_control'), '+pids +memory');
    }
  }
}

/**
 * Kills what is still in the groups, then removes them. A group empties only once the kernel has
 * reaped its last task, so the removal is tried a few times; a leftover is swept at next start.
 */
async function removeGroups(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    for (let attempt = 0; attempt < 100; attempt++) {
      for (const pid of tasks(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      try {
        rmdirSync(dir);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (code !== 'EBUSY') break;
        await sleep(attempt < 10 ? 1 : 20);
      }
    }
  }
}

function tasks(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Removes this daemon's parent groups (at its close), with whatever is still below them. */
export async function removeBase(base: CgroupBase): Promise<void> {
  await sweepGroups(base);
  await removeGroups([...bases(base)]);
}

/**
 * Removes what daemons of other homes left and will never remove themselves: a daemon killed
 * before its close leaves its parent group (a test's home, deleted, never starts again), and the
 * groups of its commands. Only empty groups go (`rmdir` refuses any other, and nothing in them is
 * killed); a command's group only once the process that made it (`<pid>-`, `probe-<pid>`) is
 * gone, as a live one may be about to join it. A live daemon's parent, empty between its
 * commands, may go too: its next command makes it again (`mkdirUnder`). One parent a turn of
 * the event loop, so a long list holds up nothing.
 */
export async function sweepOthers(base: CgroupBase): Promise<void> {
  const own = bases(base);
  for (const root of new Set([...own].map((dir) => dirname(dir)))) {
    for (const key of subgroups(root)) {
      if (own.has(key)) continue;
      await nextTurn();
      for (const group of subgroups(key)) {
        const maker = /^(?:probe-)?(\d+)/.exec(group.slice(key.length + 1))?.[1];
        if (maker !== undefined && !isAlive(Number(maker))) removeEmpty(group);
      }
      removeEmpty(key);
    }
  }
}

function subgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

function removeEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // In use (EBUSY), or removed meanwhile.
  }
}

/**
 * Removes the groups whose names start with `prefix` (all: a previous daemon's, at start; one
 * broker's, `<pid>-`, when it exited). Which ones is decided now, synchronously: a group made
 * after this call is never taken.
 */
export function sweepGroups(base: CgroupBase, prefix = ''): Promise<void> {
  const dirs: string[] = [];
  for (const parent of bases(base)) {
    try {
      for (const e of readdirSync(parent, { withFileTypes: true })) {
        if (e.isDirectory() && e.name.startsWith(prefix)) dirs.push(join(parent, e.name));
      }
    } catch {
      // No parent: nothing to sweep.
    }
  }
  return removeGroups(dirs);
}
