/** The scheduler's tick: every active cron due now, and the next runs a clock set back left ahead. */
import { type CronDeps, iso } from './deps.ts';
import { evaluate } from './evaluate.ts';
import { nextRunAt } from './schedule.ts';

/** The wall clock of the scheduler's last tick; `NaN` before the first. */
export interface TickMemory {
  lastTickMs: number;
}

/**
 * Every active cron due at `nowMs` (`graceMs`: how late is still on time). The scheduler calls
 * it on each tick; at start with a grace of 0, so what passed while the daemon was down gets the
 * missed policy. Answers the crons it could not evaluate, with why.
 */
export function fireDue(
  deps: CronDeps,
  memory: TickMemory,
  nowMs: number,
  graceMs: number,
): { id: string; error: unknown }[] {
  const failed: { id: string; error: unknown }[] = [];
  // A next run is always counted from a time at or before the clock of its day, so the first
  // tick (the clock may have been set back while the daemon was down) and any tick earlier
  // than the last look for next runs counted from a later clock.
  if (!(nowMs >= memory.lastTickMs)) reanchor(deps, nowMs, failed);
  memory.lastTickMs = nowMs;
  for (const row of deps.store.crons.due(iso(nowMs))) {
    try {
      evaluate(deps, row.id, nowMs, graceMs);
    } catch (error) {
      failed.push({ id: row.id, error });
    }
  }
  return failed;
}

/**
 * A wall clock set back (by NTP, a restored VM, a person) leaves next runs counted from the
 * later clock: an hourly cron set back two hours would skip two hours of fires. Each such cron
 * gets its next run counted from now, recorded as `cron.rescheduled`.
 */
function reanchor(
  { store, events, changed }: Pick<CronDeps, 'store' | 'events' | 'changed'>,
  nowMs: number,
  failed: { id: string; error: unknown }[],
): void {
  for (const row of store.crons.ahead(iso(nowMs))) {
    try {
      const next = nextRunAt(row.schedule, row.timezone, new Date(nowMs));
      if (next === null || row.next_run_at === null || next >= row.next_run_at) continue;
      const from = row.next_run_at;
      store.db.transaction((afterCommit) => {
        if (!store.crons.advance(row.id, from, next, iso(nowMs))) return;
        events.record('cron.rescheduled', row.id, {
          cron_id: row.id,
          reason: 'clock_set_back',
          from,
          next_run_at: next,
        });
        changed(afterCommit);
      });
    } catch (error) {
      failed.push({ id: row.id, error });
    }
  }
}
