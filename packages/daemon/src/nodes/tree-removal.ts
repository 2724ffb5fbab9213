/**
 * Removing a final tree from the record (`runs.delete`, `canvas.prune`): one way, so both take
 * the same things with it.
 */
import type { Logger } from '../lifecycle/logger.ts';
import type { Db } from '../store/db.ts';
import type { Store } from '../store/index.ts';
import { abandonWorktree, type WorktreeDeps } from '../worktrees/worktrees.ts';
import type { NodeRow } from './store/nodes.ts';

/** A removed node whose worktree goes after the commit: a git node's branch with it. */
export type RemovedNode = Pick<NodeRow, 'id' | 'workspace'>;

/**
 * In the caller's transaction: the tree's nodes with all that hangs on them (turns, mail,
 * reports, jobs), their `node:<id>` memory documents (no token reaches those once the node is
 * gone), the app's handles on their questions (a question reads its run's words) and their
 * events with the run's (`node.turn` events carry the very transcripts being removed). The human
 * requests behind the questions stay: they are the person's inbox history, which outlives the
 * asking node (migration 007). Answers the nodes, whose worktrees go after the commit
 * (`removeWorktrees`).
 * @param runId the tree's run, or `null` (then only the nodes' events go)
 */
export function removeTree(store: Store, rootId: string, runId: string | null): RemovedNode[] {
  const nodes = store.nodes.treeWorktrees(rootId);
  const ids = nodes.map((n) => n.id);
  store.memory.deleteNodeSpaces(ids);
  store.questions.deleteNodes(ids);
  store.nodeEvents.deleteRun(runId ?? rootId, rootId);
  store.nodes.deleteTree(rootId);
  return nodes;
}

/**
 * After the commit: the removed nodes' worktrees; a failure is logged, the removal stands.
 * Settles once each is removed or failed.
 */
export async function removeWorktrees(
  worktrees: WorktreeDeps,
  logger: Pick<Logger, 'warn'>,
  nodes: readonly RemovedNode[],
): Promise<void> {
  await Promise.all(
    // Every node removed was final (its row is gone now, its state with it). Done at once,
    // unless a worktree of the same repository is being made meanwhile.
    nodes.map((node) =>
      abandonWorktree(worktrees, { ...node, state: 'done' }).catch((error: unknown) => {
        logger.warn(
          { err: error, node_id: node.id },
          'could not remove the worktree of a removed node',
        );
      }),
    ),
  );
}

/**
 * The removal of a transaction's removed worktrees, started once that transaction is durable:
 * call `start` in it, then await `done()` after it, so that a route answers once the worktrees
 * are gone (a git node's branch goes through git in a sandbox: not at once). `done()` rejects
 * with the commit's failure instead, when it is lost and `remove` never runs.
 */
export function worktreesAfterCommit(db: Pick<Db, 'durable'>) {
  let removal: Promise<void> = Promise.resolve();
  return {
    start(afterCommit: (cb: () => void) => void, remove: () => Promise<void>): void {
      removal = new Promise((resolve) => afterCommit(() => resolve(remove())));
    },
    // The commit's callbacks run as it becomes durable, before `durable()`'s waiters resume.
    done: async (): Promise<void> => {
      await db.durable();
      await removal;
    },
  };
}
