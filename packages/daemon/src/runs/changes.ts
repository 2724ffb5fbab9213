/**
 * What changes a run: interrupting or cancelling it is doing so to its root (the nodes'
 * operations), renaming it changes its own row, deleting it removes its final tree.
 */
import { ApiError } from '../errors.ts';
import { removeTree, worktreesAfterCommit } from '../nodes/tree-removal.ts';
import type { Caller } from '../nodes/visibility.ts';
import type { RunDeps } from './deps.ts';
import { getRun } from './read.ts';
import { changeableRun, type Run } from './view.ts';

export async function interruptRun(
  deps: Pick<RunDeps, 'store' | 'nodes'>,
  id: string,
  reason: string | undefined,
  caller: Caller,
): Promise<Run> {
  const { root } = changeableRun(deps.store, caller, id, 'interrupts');
  await deps.nodes.interrupt(root.id, reason, caller);
  return getRun(deps, id, caller);
}

export async function cancelRun(
  deps: Pick<RunDeps, 'store' | 'nodes'>,
  id: string,
  reason: string | undefined,
  caller: Caller,
): Promise<Run> {
  const { root } = changeableRun(deps.store, caller, id, 'cancels');
  await deps.nodes.cancel(root.id, reason, caller);
  return getRun(deps, id, caller);
}

export function renameRun(
  deps: Pick<RunDeps, 'store' | 'events'>,
  id: string,
  title: string,
  caller: Caller,
): Run {
  return deps.store.db.transaction(() => {
    const { run } = changeableRun(deps.store, caller, id, 'renames');
    deps.store.runs.rename(run.id, title, new Date().toISOString());
    deps.events.record('run.renamed', run.id, { run_id: run.id, title });
    return getRun(deps, id, caller);
  });
}

/** Deletes a final run with its tree, as `removeTree` does, and then its worktrees. */
export async function deleteRun(
  deps: Pick<RunDeps, 'store' | 'events' | 'removed'>,
  id: string,
  caller: Caller,
): Promise<{ id: string; deleted: true }> {
  const { store } = deps;
  const worktrees = worktreesAfterCommit(store.db);
  const deleted = store.db.transaction((afterCommit) => {
    const { run, root } = changeableRun(store, caller, id, 'deletes');
    if (root.state !== 'done' && root.state !== 'failed' && root.state !== 'cancelled') {
      throw new ApiError(
        'invalid_state',
        `run is '${root.state}'; only a done, failed or cancelled run can be deleted (cancel it first)`,
      );
    }
    const live = store.nodes
      .treeIds(root.id)
      .map((nid) => store.nodes.get(nid)!)
      .filter((n) => n.state === 'queued' || n.state === 'running' || n.state === 'waiting');
    if (live.length > 0) {
      throw new ApiError(
        'invalid_state',
        `run ${id} still has ${live.length} live node(s), e.g. ${live[0]!.id}; cancel them first`,
      );
    }
    const gone = removeTree(store, root.id, run.id);
    deps.events.record('run.deleted', run.id, { run_id: run.id });
    worktrees.start(afterCommit, () => deps.removed(gone));
    return { id: run.id, deleted: true as const };
  });
  await worktrees.done();
  return deleted;
}
