/**
 * `/proc/<pid>/stat` (proc(5)), the one place the daemon reads a process's state, parent, group
 * and start time from. Linux only: elsewhere, and for a process that is gone, `null`. And whether
 * a process exists at all.
 */
import { readFileSync } from 'node:fs';

export interface ProcStat {
  /** `R`, `S`, `Z` (exited, not yet reaped), … */
  state: string;
  ppid: number;
  pgid: number;
  /** The start time in clock ticks since boot (field 22): with the pid, names one process. */
  startTicks: string;
}

export function procStat(pid: number | string): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so the fields are cut
  // after the last ')'; they start at the 3rd (state), so the 22nd is the 20th of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTicks: fields[19] ?? '',
  };
}

/** The process `pid` exists (EPERM: it is another user's), a zombie not yet reaped included. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
