/** `canvas.history.stats`: sums of the recorded turns. */
import { type historyStatsSchema, NODE_STATES } from '@svc/protocol';
import type { z } from 'zod';
import type { Principal } from '../ports.ts';
import type { HistoryDeps } from './history-deps.ts';
import type { StatsGroup } from './store.ts';

export type HistoryStats = z.output<typeof historyStatsSchema>;

/** Sums of the visible turns by profile, model or day, and the visible nodes by state. */
export function historyStats(
  { store, nodes }: HistoryDeps,
  principal: Principal,
  q: { since?: string | undefined; groupBy: StatsGroup },
): HistoryStats {
  const since = q.since === undefined ? null : new Date(q.since).toISOString();
  const read = store.canvas.read(() =>
    store.canvas.stats(nodes.readVisibility(principal), q.groupBy, since),
  );
  const byState = Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<
    (typeof NODE_STATES)[number],
    number
  >;
  for (const row of read.byState) byState[row.state as (typeof NODE_STATES)[number]] = row.count;
  const stats: HistoryStats = {
    since,
    group_by: q.groupBy,
    groups: read.groups.map((g) => ({ ...g })),
    totals: { ...read.totals },
    nodes_by_state: byState,
  };
  return stats;
}
