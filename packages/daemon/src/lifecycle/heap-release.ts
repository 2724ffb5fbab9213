/**
 * Gives back to the system what a burst of work left the daemon holding, once it has been quiet
 * for a while.
 *
 * Why: after a burst (1,000 nodes launched and parked, say), V8's own collections shrink the
 * heap it counts (the young generation from 128 MB back to 1 MB), but the 256 KB pages it freed
 * stay pooled and resident: the daemon measured 107 MB of them, for 2.3 MB of objects the
 * parked nodes still held. A "last resort" collection, the one V8 runs under memory pressure,
 * returns them; Node exposes it only as `gc({ flavor: 'last-resort' })`. It costs one full
 * collection of a heap of a few tens of MB, once per quiet spell: a daemon with nothing to do
 * stays at no CPU.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Quiet this long (no request) before the release: past a turn's gap, short of a person's wait. */
export const HEAP_RELEASE_QUIET_MS = 5_000;

export interface HeapRelease {
  /** Some work came (a request): the quiet spell starts again. */
  touch(): void;
  /** No release from now on. */
  close(): void;
}

export interface HeapReleaseOptions {
  /** How long without `touch` before the release; default `HEAP_RELEASE_QUIET_MS`. */
  quietMs?: number;
  /** The release itself; default a last-resort collection. */
  collect?: () => void;
  /** After each release, with how long it took (ms). */
  onRelease?: (ms: number) => void;
  /** True while a release must not run (an agent host's node would stall): skipped, not delayed. */
  busy?: () => boolean;
}

export function heapRelease(options: HeapReleaseOptions = {}): HeapRelease {
  const quietMs = options.quietMs ?? HEAP_RELEASE_QUIET_MS;
  if (!Number.isFinite(quietMs) || quietMs <= 0) {
    throw new TypeError(`quietMs must be a positive number of ms; received ${String(quietMs)}`);
  }
  let collect = options.collect;
  let last = 0;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const arm = (ms: number) => {
    timer = setTimeout(due, ms);
    // A timer of its own must not keep a closing daemon's process alive.
    timer.unref();
  };
  function due() {
    timer = null;
    if (closed) return;
    const quietFor = performance.now() - last;
    if (quietFor < quietMs) return arm(quietMs - quietFor);
    if (options.busy?.() === true) return;
    collect ??= lastResortCollection();
    const from = performance.now();
    collect();
    options.onRelease?.(performance.now() - from);
    // Disarmed until the next touch: one release per quiet spell, nothing while idle.
  }

  return {
    touch() {
      last = performance.now();
      if (timer === null && !closed) arm(quietMs);
    },
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * V8's last-resort collection. `--expose-gc` set at run time puts `gc` in contexts made after it,
 * not in this one: the daemon's own global stays as it was (`globalThis.gc` is used when the
 * process was started with the flag, as the bench's daemon is).
 */
function lastResortCollection(): () => void {
  let gc = (globalThis as { gc?: Gc }).gc;
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
  }
  const run = gc;
  return () => run({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
