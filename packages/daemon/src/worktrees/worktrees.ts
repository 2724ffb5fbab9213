/**
 * A node's worktree, `SVC_HOME/worktrees/<node id>`: the directory its broker works in (the
 * default directory of its `bash` calls). The supervisor makes it at the node's first launch and
 * keeps it across relaunches, revives and recycles, so a node picks up its files where it left
 * them. It is a plain directory, or for a node with a git workspace a `git worktree` of its
 * repository (`./git-worktree.ts`). Closing or abandoning it removes it, as `git worktree remove`
 * does, with or without `--force`: close refuses while it holds anything (a plain directory's
 * entries, a git worktree's uncommitted changes) and keeps a git node's branch; abandon discards
 * what it holds, the branch too.
 */
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FINAL_STATES, isFinal, type Worktree } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import type { GitRunner } from './git.ts';
import {
  abandonGitWorktree,
  closeGitWorktree,
  closeRefusal,
  type GitRemoval,
} from './git-worktree.ts';

export type { Worktree };

/** Where the daemon's worktrees are (its home), and how git runs on them (confined, `./git.ts`). */
export interface WorktreeDeps {
  home: string;
  git: GitRunner;
}

/** What closing or abandoning reads of a node. */
export type WorktreeNode = Pick<NodeRow, 'id' | 'state' | 'workspace'>;

/** The worktree directory of node `id` under `home`. */
export function worktreePath(home: string, id: string): string {
  return join(home, 'worktrees', id);
}

/**
 * Removes the worktree of a final node when it holds nothing; 409 `invalid_state` while it holds
 * files (a git worktree: uncommitted changes), naming how many, so that nothing a node made is
 * lost by a close. A git node's branch stays, with what it committed.
 */
export async function closeWorktree(deps: WorktreeDeps, node: WorktreeNode): Promise<Worktree> {
  const path = finalNodeWorktree(deps.home, node, 'closed');
  const { workspace } = node;
  if (workspace !== null) {
    const refusal = await closeRefusal(deps.git, workspace, node.id, path);
    if (refusal !== null) throw new ApiError('invalid_state', refusal, { field: 'id' });
    try {
      return answer(node.id, path, await closeGitWorktree(deps.git, workspace, path));
    } catch (error) {
      // git unable to run confined says so itself (503); else what could not be deleted.
      if (error instanceof ApiError) throw error;
      throw new ApiError(
        'invalid_state',
        `git could not remove the worktree at ${path} (${(error as Error).message}); abandon it to discard it`,
        { field: 'id' },
      );
    }
  }
  const held = entries(path);
  if (held > 0) {
    throw new ApiError(
      'invalid_state',
      `the worktree of ${node.id} holds ${held} ${held === 1 ? 'entry' : 'entries'}; move what you need out of ${path}, or abandon it to discard them`,
      { field: 'id' },
    );
  }
  return remove(node.id, path);
}

/**
 * Removes the worktree of a final node and everything in it; a git node's branch too, once no
 * other worktree of its repository is being made (`abandonGitWorktree`).
 */
export async function abandonWorktree(deps: WorktreeDeps, node: WorktreeNode): Promise<Worktree> {
  const path = finalNodeWorktree(deps.home, node, 'abandoned');
  const { workspace } = node;
  if (workspace !== null) {
    return answer(node.id, path, await abandonGitWorktree(deps.git, workspace, path));
  }
  return remove(node.id, path);
}

function answer(nodeId: string, path: string, removal: GitRemoval): Worktree {
  return { node_id: nodeId, path, exists: false, removed: removal.removed, branch: removal.branch };
}

/**
 * A node that is not final may run again at once (a queued node, a waiting one woken by mail),
 * in the directory it would find removed; a final one runs only after a revive or a recycle,
 * whose launch makes a fresh worktree.
 */
function finalNodeWorktree(
  home: string,
  node: Pick<NodeRow, 'id' | 'state'>,
  done: string,
): string {
  if (!isFinal(node.state)) {
    throw new ApiError(
      'invalid_state',
      `${node.id} is ${node.state}; its worktree can be ${done} once it is ${FINAL_STATES.join(', ')}`,
      { field: 'id' },
    );
  }
  return worktreePath(home, node.id);
}

/** What the path holds: entries of a directory; 1 for anything else there (a link, a file). */
function entries(path: string): number {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return 0; // nothing there: never launched, or removed already
  }
  return stat.isDirectory() ? readdirSync(path).length : 1;
}

function remove(nodeId: string, path: string): Worktree {
  const removed = existsAt(path);
  // Never follows a link: a node that swapped its worktree for one loses the link, not its target.
  rmSync(path, { recursive: true, force: true });
  return { node_id: nodeId, path, exists: false, removed, branch: null };
}

/** Whether anything is at `path`, a dangling link included (`lstat`, never followed). */
function existsAt(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
