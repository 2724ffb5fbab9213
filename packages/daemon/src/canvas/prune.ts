/**
 * Pruning the canvas (docs/api-v1.md "Canvas"): root trees whose every node is final and ended
 * long ago go, rows then worktrees. The owner's.
 */
import { type canvasPruneResultSchema, PRUNE_DEFAULT_OLDER_THAN_S } from '@svc/protocol';
import type { z } from 'zod';
import type { EventLog } from '../events/log.ts';
import type { Logger } from '../lifecycle/logger.ts';
import {
  type RemovedNode,
  removeTree,
  removeWorktrees,
  worktreesAfterCommit,
} from '../nodes/tree-removal.ts';
import type { Store } from '../store/index.ts';
import type { GitRunner } from '../worktrees/git.ts';

export type PruneResult = z.output<typeof canvasPruneResultSchema>;

const PRUNE_LIMIT_DEFAULT = 500;

export interface PruneDeps {
  store: Store;
  events: EventLog;
  home: string;
  /** How git runs on a removed git node's repository (`../worktrees/git.ts`). */
  git: GitRunner;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Removes root trees whose every node is final and ended over `olderThanS` ago: rows (turns,
 * mail, reports, jobs go with them, and a run's row with its root; each node's `node:<id>`
 * memory documents too), then worktrees. The event log loses their events too (as with
 * `runs.delete`); one `canvas.pruned` event records the prune.
 */
export async function prune(
  { store, events, home, git, logger }: PruneDeps,
  opts: {
    olderThanS?: number | undefined;
    dryRun?: boolean | undefined;
    includeRuns?: boolean | undefined;
    limit?: number | undefined;
  },
): Promise<PruneResult> {
  const olderThanS = opts.olderThanS ?? PRUNE_DEFAULT_OLDER_THAN_S;
  const limit = opts.limit ?? PRUNE_LIMIT_DEFAULT;
  const dryRun = opts.dryRun === true;
  const removed: RemovedNode[] = [];
  const worktrees = worktreesAfterCommit(store.db);
  const result = store.db.transaction((afterCommit) => {
    const cutoff = new Date(Date.now() - olderThanS * 1000).toISOString();
    const found = store.canvas.pruneCandidates({
      cutoff,
      includeRuns: opts.includeRuns === true,
      limit: limit + 1,
    });
    const trees = found.slice(0, limit);
    const count = trees.reduce((sum, tree) => sum + tree.nodes, 0);
    if (!dryRun && trees.length > 0) {
      for (const tree of trees) removed.push(...removeTree(store, tree.id, tree.run_id));
      events.record('canvas.pruned', null, {
        root_ids: trees.map((t) => t.id),
        nodes: count,
        run_ids: trees.flatMap((t) => (t.run_id === null ? [] : [t.run_id])),
        older_than_s: olderThanS,
      });
      worktrees.start(afterCommit, () => removeWorktrees({ home, git }, logger, removed));
    }
    return {
      pruned: trees.map((t) => t.id),
      count: trees.length,
      nodes: count,
      dry_run: dryRun,
      has_more: found.length > limit,
    };
  });
  await worktrees.done();
  return result;
}
