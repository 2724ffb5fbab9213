/**
 * Crons (docs/api-v1.md "Crons"): each fire creates a root node with the cron's task, as its
 * creator, so an app's cron never exceeds the app's scope ceiling. A scheduled fire is one
 * transaction: claim the scheduled time (move `next_run_at` on, guarded by its old value), create
 * the node, record `cron.fired`. Whoever loses the claim does nothing, so a scheduled time fires
 * at most once, across restarts and `kill -9` alike. Timing is the clock's (`scheduler.ts`); the
 * operations, one a file beside this one, decide what a due cron does. This assembles them into
 * the object the daemon calls, with the one state they share: who listens for changes.
 */

import { withDeps } from '../with-deps.ts';
import { createCron } from './create.ts';
import { deleteCron } from './delete.ts';
import type { CronDeps } from './deps.ts';
import { claimAndFire } from './fire.ts';
import { fireDue, type TickMemory } from './fire-due.ts';
import { pauseCron, resumeCron } from './pause-resume.ts';
import { pokeCron } from './poke.ts';
import { getCron, listCrons } from './read.ts';
import { runCron } from './run.ts';

export type CronServiceDeps = Omit<CronDeps, 'changed'>;

export function cronService(made: CronServiceDeps) {
  const listeners = new Set<() => void>();
  const memory: TickMemory = { lastTickMs: Number.NaN };
  const deps: CronDeps = {
    ...made,
    // The clock re-arms once a change commits.
    changed: (afterCommit) =>
      afterCommit(() => {
        for (const listener of listeners) listener();
      }),
  };
  return {
    /** Calls `listener` after every commit that changed a cron's schedule; returns the unsubscribe. */
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The soonest `next_run_at` of an active cron, or `null`. */
    soonest: (): string | null => made.store.crons.soonest(),
    fireDue: (nowMs: number, graceMs: number) => fireDue(deps, memory, nowMs, graceMs),
    claimAndFire: withDeps(deps, claimAndFire),
    create: withDeps(deps, createCron),
    get: withDeps(deps, getCron),
    list: withDeps(deps, listCrons),
    pause: withDeps(deps, pauseCron),
    resume: withDeps(deps, resumeCron),
    run: withDeps(deps, runCron),
    delete: withDeps(deps, deleteCron),
    poke: withDeps(deps, pokeCron),
  };
}

export type CronService = ReturnType<typeof cronService>;
