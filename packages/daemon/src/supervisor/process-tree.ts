/**
 * The processes a broker started. A broker runs each `bash` command in a process group of its
 * own (so a timeout kills the whole command), which a signal to the broker's group does not
 * reach; stopping a node therefore walks the broker's descendants and signals their groups too.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return psTable();
  }
  return entries.flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so cut at the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ pid: Number(name), ppid: Number(ppid), pgid: Number(pgid) }];
    } catch {
      return [];
    }
  });
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
