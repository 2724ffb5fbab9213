/** What a due cron does, on time or late (its `missed` policy). */
import { type CronDeps, iso } from './deps.ts';
import { claimAndFire } from './fire.ts';
import { nextRunAt } from './schedule.ts';
import type { CronRow } from './store.ts';

/**
 * A fire this late or less is on time; later (the host slept, the clock jumped, the daemon was
 * stopped) it was missed, and the cron's `missed` policy applies.
 */
export const ON_TIME_MS = 30_000;

/**
 * What a due cron does at `nowMs`: on time (at most `graceMs` late) it fires for its scheduled
 * time; later, `run_once` fires once for the whole gap and `skip` moves on without a fire.
 */
export function evaluate(deps: CronDeps, id: string, nowMs: number, graceMs: number): void {
  const row = deps.store.crons.get(id);
  if (row?.state !== 'active' || row.next_run_at === null) return;
  const scheduledAt = row.next_run_at;
  const due = Date.parse(scheduledAt);
  if (due > nowMs) return;
  if (nowMs - due <= graceMs) claimAndFire(deps, id, scheduledAt, 'schedule', nowMs);
  else if (row.missed === 'run_once') claimAndFire(deps, id, scheduledAt, 'missed', nowMs);
  else skip(deps, row, scheduledAt, nowMs);
}

/** Moves a cron whose time passed on to its next time from now, without a fire. */
function skip(
  { store, events, changed }: Pick<CronDeps, 'store' | 'events' | 'changed'>,
  row: CronRow,
  scheduledAt: string,
  nowMs: number,
): void {
  store.db.transaction((afterCommit) => {
    const next = nextRunAt(row.schedule, row.timezone, new Date(nowMs));
    if (!store.crons.advance(row.id, scheduledAt, next, iso(nowMs))) return;
    events.record('cron.skipped', row.id, {
      cron_id: row.id,
      reason: 'missed',
      missed_from: scheduledAt,
      next_run_at: next,
    });
    changed(afterCommit);
  });
}
