/**
 * The worktree of a node with a git workspace (docs/nodes.md "Workspaces"): a `git worktree` of
 * its repository at `SVC_HOME/worktrees/<node id>` on branch `svc/<node id>`. The repository is
 * reached only through the common git directory recorded at create, never through the worktree's
 * `.git` file or the repository's own directory, both of which the node (or anyone since) may
 * have rewritten.
 */
import { chmodSync, lstatSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Workspace } from '../nodes/store/nodes.ts';
import { git, gitAsync } from './git.ts';

/** A host path a node's sandbox mounts at its own place. */
export interface Mount {
  path: string;
  writable: boolean;
}

/** The branch a node's worktree is on. */
export function branchName(nodeId: string): string {
  return `svc/${nodeId}`;
}

/**
 * What a node's sandbox must mount, besides its worktree, for git to work in it: the
 * repository's common git directory (objects, refs, and the worktree's own admin directory
 * under `worktrees/`), read-write, as recorded at create. Nothing for a plain directory. Takes
 * a node DTO, a node row's parsed `workspaceOf`, or the broker's launch message.
 */
export function worktreeMounts(node: { workspace?: Workspace | null | undefined }): Mount[] {
  if (node.workspace == null) return [];
  return [{ path: node.workspace.git_common_dir, writable: true }];
}

/**
 * Makes the worktree at `path` (where nothing is, or a relaunch reuses what is): on the node's
 * branch when it has one still (a closed worktree comes back on it), else on a new branch from
 * the workspace's base. Rejects with an `Error` saying what failed (git's words, or a common
 * git directory that is no longer where the create found it), at every launch. In the
 * background: a checkout may take a while.
 */
export function addGitWorktree(workspace: Workspace, path: string): Promise<void> {
  return onRepository(workspace, () => addNow(workspace, path));
}

/**
 * The git work on each repository that prunes or adds worktree entries, one at a time (keyed by
 * common git directory). `git worktree add` makes its entry under `worktrees/` and only then
 * marks it "initializing"; a prune in between (another add's first step, or an abandon)
 * deletes the entry as stale, and the add dies writing into it. Two nodes started at once on
 * one repository failed so, in a CI run under load.
 */
const busy = new Map<string, Promise<unknown>>();

/** Runs `fn` at once when nothing is under way on the repository, else after what is. */
function onRepository<T>(workspace: Workspace, fn: () => T | Promise<T>): Promise<T> {
  const key = workspace.git_common_dir;
  const before = busy.get(key);
  // The constructor runs `fn` now and turns a throw into a rejection.
  const done = before === undefined ? new Promise<T>((resolve) => resolve(fn())) : before.then(fn);
  const settled = done.catch(() => {});
  busy.set(key, settled);
  void settled.then(() => {
    if (busy.get(key) === settled) busy.delete(key);
  });
  return done;
}

async function addNow(workspace: Workspace, path: string): Promise<void> {
  // What the sandbox mounts is the recorded path: a link swapped in for it since the create
  // would have it mount (and git write) wherever the link points.
  if (realOrNull(workspace.git_common_dir) !== workspace.git_common_dir) {
    throw new Error(
      `the git directory of ${workspace.repo} is no longer at ${workspace.git_common_dir} (moved, or replaced by a link)`,
    );
  }
  if (existsAt(path)) return;
  const at = { gitDir: workspace.git_common_dir };
  // An entry left by a worktree removed without git (a pruned tree) would hold the branch.
  await gitAsync(at, ['worktree', 'prune']);
  const kept = (await gitAsync(at, branchQuery(workspace))).ok;
  const added = kept
    ? await gitAsync(at, ['worktree', 'add', path, workspace.branch])
    : await gitAsync(at, [
        'worktree',
        'add',
        '-b',
        workspace.branch,
        path,
        workspace.base ?? 'HEAD',
      ]);
  if (!added.ok) {
    throw new Error(
      `could not make the git worktree of ${workspace.repo} on ${workspace.branch}: ${added.error}`,
    );
  }
  chmodSync(path, 0o700); // as private as a plain worktree
}

/** The outcome of a removal, for the worktree DTO. */
export interface GitRemoval {
  removed: boolean;
  branch: { name: string; repo: string; kept: boolean };
}

/**
 * What keeps a clean close from removing the worktree at `path`: uncommitted changes (what
 * `git status` lists, untracked files included), or git failing to read it. `null` when it may go.
 */
export function closeRefusal(workspace: Workspace, nodeId: string, path: string): string | null {
  if (!existsAt(path)) return null;
  if (!isDirectory(path)) {
    return `${path} is no longer the directory git made; abandon it to remove what is there`;
  }
  const status = git({ gitDir: adminDir(workspace, nodeId), workTree: path }, [
    'status',
    '--porcelain',
    '--untracked-files=all',
  ]);
  if (!status.ok) {
    return `git cannot read the worktree at ${path} (${status.error}); abandon it to discard it`;
  }
  const changed = status.stdout.split('\n').filter((line) => line !== '').length;
  if (changed === 0) return null;
  return `the worktree of ${nodeId} has ${changed} uncommitted ${changed === 1 ? 'change' : 'changes'} (git status); commit what you need to ${workspace.branch}, or abandon it to discard them`;
}

/** `git worktree remove` of a clean worktree (see `closeRefusal`), keeping the branch. */
export function closeGitWorktree(workspace: Workspace, path: string): GitRemoval {
  const removed = existsAt(path);
  if (removed) {
    const done = git({ gitDir: workspace.git_common_dir }, ['worktree', 'remove', path]);
    if (!done.ok) throw new Error(done.error);
  }
  return { removed, branch: branchOutcome(workspace) };
}

/**
 * `git worktree remove --force` and `git branch -D`: everything the node made goes. Whatever git
 * cannot remove (a worktree whose `.git` the node rewrote, a link put in its place) is removed
 * without it, never following a link, and its entry pruned: after any add under way on the
 * repository (`onRepository`), whose entry the prune would take for stale.
 */
export function abandonGitWorktree(workspace: Workspace, path: string): Promise<GitRemoval> {
  return onRepository(workspace, () => abandonNow(workspace, path));
}

function abandonNow(workspace: Workspace, path: string): GitRemoval {
  const at = { gitDir: workspace.git_common_dir };
  const removed = existsAt(path);
  // Only a real directory is handed to git, which resolves links: a link put in the place of
  // the worktree would have it remove where the link points (another node's worktree).
  if (
    removed &&
    !(isDirectory(path) && git(at, ['worktree', 'remove', '--force', '--force', path]).ok)
  ) {
    rmSync(path, { recursive: true, force: true });
  }
  git(at, ['worktree', 'prune']);
  // A branch checked out elsewhere (the person's own checkout) stays: `kept` says so.
  if (branchExists(workspace)) git(at, ['branch', '-D', workspace.branch]);
  return { removed, branch: branchOutcome(workspace) };
}

function branchOutcome(workspace: Workspace): GitRemoval['branch'] {
  return { name: workspace.branch, repo: workspace.repo, kept: branchExists(workspace) };
}

function branchExists(workspace: Workspace): boolean {
  return git({ gitDir: workspace.git_common_dir }, branchQuery(workspace)).ok;
}

function branchQuery(workspace: Workspace): string[] {
  return ['rev-parse', '--verify', '--quiet', `refs/heads/${workspace.branch}`];
}

/** git names a worktree's admin directory after the worktree's: the node id (see `addGitWorktree`). */
function adminDir(workspace: Workspace, nodeId: string): string {
  return join(workspace.git_common_dir, 'worktrees', nodeId);
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isDirectory(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
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
