/**
 * How the group commit (`group-commit.ts`) makes the WAL durable: `fdatasync(2)`, on the event
 * loop while the disk syncs fast, on libuv's thread pool once it does not.
 *
 * Why on the loop at all: a sync off it is two hand-offs, to a pool thread and back to the loop,
 * and on a busy machine each waits for a CPU and for the loop's turn. With 8 agents at work on 2
 * cores (`npm run bench:nodes`, a VM's disk) a flush took 2.3 ms median from its start to its
 * callback against 0.6 ms for the same sync made on the loop, and a commit waited 4.2 ms for its
 * flush against 2.0; with their model taking 100 ms a turn, event lag to 50 watchers (p99) went
 * from 13-29 ms to 9-15 (4 interleaved pairs; lower in 6 of 7 with the earlier ones). The loop
 * is held for the sync instead, so this holds only while syncs are short: a disk whose recent
 * syncs take more than `slowMs` in the median (a spinning disk, a network volume) is synced off
 * the loop, and tried on it again every `probeEvery` flushes, so the loop waits on a slow disk
 * once in that many flushes at most. The median, not an average: a sync's time on the loop is
 * its wall time, and on a busy machine the loop is also preempted during some of them (a run of
 * 7 ms ones among 0.5 ms ones), which must not send a fast disk's syncs away. One sync past
 * `stallMs` sends the next ones off the loop at once: a disk that stalls (a hung network volume)
 * holds every answer and stream for as long, and waiting for the median would hold them for
 * several; a preempted loop that sets it off costs only `probeEvery` flushes off the loop.
 */
import { fdatasync, fdatasyncSync } from 'node:fs';

/** Makes what was written to the file behind `fd` durable (its data and size, on the disk). */
export type Flush = (fd: number) => Promise<void>;

/** Syncs on the loop whose recent median is above this (ms) send the next ones off it. */
const SLOW_FLUSH_MS = 4;
/** A sync on the loop longer than this (ms) sends the next ones off it, whatever the median. */
const STALL_FLUSH_MS = 20;
/** How many of the last syncs on the loop the median is of. */
const RECENT = 9;
/** While syncs go off the loop, one in this many is tried on it again, to see the disk recover. */
const PROBE_EVERY = 100;

/** `fdatasync(2)` on libuv's thread pool: the event loop goes on meanwhile. */
const fdatasyncOffLoop: Flush = (fd) =>
  new Promise((resolve, reject) => {
    fdatasync(fd, (error) => (error === null ? resolve() : reject(error)));
  });

export interface AdaptiveFlushOptions {
  slowMs?: number;
  stallMs?: number;
  probeEvery?: number;
  /** The sync made on the loop; default `fdatasyncSync`. */
  sync?: (fd: number) => void;
  /** The flush made off it; default `fdatasyncOffLoop`. */
  offLoop?: Flush;
  now?: () => number;
}

/** A `Flush` that syncs on the loop while its syncs are fast, off it while they are not. */
export function adaptiveFlush(opts: AdaptiveFlushOptions = {}): Flush {
  const {
    slowMs = SLOW_FLUSH_MS,
    stallMs = STALL_FLUSH_MS,
    probeEvery = PROBE_EVERY,
    sync = fdatasyncSync,
    offLoop = fdatasyncOffLoop,
    now = () => performance.now(),
  } = opts;
  const recent: number[] = [];
  let slow = false;
  let offSince = 0;
  return function flushWal(fd) {
    if (slow && ++offSince < probeEvery) return offLoop(fd);
    offSince = 0;
    const start = now();
    try {
      sync(fd);
    } catch (error) {
      return Promise.reject(error);
    }
    const took = now() - start;
    recent.push(took);
    if (recent.length > RECENT) recent.shift();
    slow = took > stallMs || median(recent) > slowMs;
    return Promise.resolve();
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
