/**
 * A daemon's WAL flush that a test can hold, to see the window between a commit and the flush
 * that makes it durable (group commit, `src/store/group-commit.ts`).
 */
import { fdatasync } from 'node:fs';
import type { Flush } from '../src/store/db.ts';

/** The daemon's flush, passed through to `fdatasync` until `hold()`; held ones wait for `release()`. */
export function flushGate() {
  let holding = false;
  const held: (() => void)[] = [];
  let onHeld: (() => void) | null = null;
  const flush: Flush = (fd) =>
    new Promise((resolve, reject) => {
      const go = () => fdatasync(fd, (error) => (error === null ? resolve() : reject(error)));
      if (!holding) return go();
      held.push(go);
      onHeld?.();
    });
  return {
    flush,
    /** Holds the flushes from now on; resolves when the first one is held. */
    hold(): Promise<void> {
      holding = true;
      return new Promise((resolve) => {
        onHeld = resolve;
      });
    },
    release(): void {
      holding = false;
      onHeld = null;
      for (const go of held.splice(0)) go();
    },
  };
}
