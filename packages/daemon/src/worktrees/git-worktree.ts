/**
 * The worktree of a node with a git workspace (docs/nodes.md "Workspaces"): a `git worktree` of
 * its repository at `SVC_HOME/worktrees/<node id>` on branch `svc/<node id>`. The repository is
 * reached only through the common git directory recorded at create, never through the worktree's
 * `.git` file or the repository's own directory, both of which the node (or anyone since) may
 * have rewritten. Every git call runs through the daemon's `GitRunner` (`./git.ts`), confined to
 * the repository's common git directory and the node's worktree.
 */
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Workspace } from '../nodes/store/nodes.ts';
import { type GitResult, type GitRunner, gitOn } from './git.ts';

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
export function addGitWorktree(run: GitRunner, workspace: Workspace, path: string): Promise<void> {
  return onRepository(workspace, () => addNow(run, workspace, path));
}

/**
 * The git work on each repository that adds or drops worktree entries, one at a time (keyed by
 * common git directory). `git worktree add` makes its entry under `worktrees/` and only then
 * marks it "initializing"; a prune in between (as adds and abandons once ran) deleted the entry
 * as stale, and the add died writing into it: two nodes started at once on one repository
 * failed so, in a CI run under load. None prunes now, but git makes no promise for two of its
 * writers on one repository's entries and refs at once.
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

async function addNow(run: GitRunner, workspace: Workspace, path: string): Promise<void> {
  // What the sandbox mounts is the recorded path: a link swapped in for it since the create
  // would have it mount (and git write) wherever the link points.
  if (realOrNull(workspace.git_common_dir) !== workspace.git_common_dir) {
    throw new Error(
      `the git directory of ${workspace.repo} is no longer at ${workspace.git_common_dir} (moved, or replaced by a link)`,
    );
  }
  if (existsAt(path) && !isEmptyDirectory(path)) return;
  const repository = onRepo(run, workspace);
  // An entry left by a worktree removed without git would hold the branch, and its name.
  if (existsAt(join(workspace.git_common_dir, 'worktrees', basename(path)))) {
    await forgetEntry(run, workspace, path);
  }
  // git adds into an empty directory, and the sandbox binds only one that exists: made here.
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const kept = (await repository(branchQuery(workspace))).ok;
  const add = kept
    ? ['worktree', 'add', path, workspace.branch]
    : ['worktree', 'add', '-b', workspace.branch, path, workspace.base ?? 'HEAD'];
  const added = await gitOn(
    { run, repository: workspace.git_common_dir, worktree: path },
    gitDirOf(workspace),
    add,
    true,
  );
  if (!added.ok) {
    // The directory made for it goes too: a failed launch leaves nothing where it would be.
    if (isEmptyDirectory(path)) rmSync(path, { recursive: true });
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
 * `git status` lists, untracked files included), git failing to read it, a lock (`git worktree
 * lock`), or a `.git` that no longer leads to its entry. `null` when it may go.
 */
export async function closeRefusal(
  run: GitRunner,
  workspace: Workspace,
  nodeId: string,
  path: string,
): Promise<string | null> {
  if (!existsAt(path)) return null;
  if (!isDirectory(path)) {
    return `${path} is no longer the directory git made; abandon it to remove what is there`;
  }
  const admin = adminDir(workspace, nodeId);
  if (!leadsTo(path, admin)) {
    return `the .git of the worktree at ${path} no longer leads to its entry in ${workspace.git_common_dir}; abandon it to remove it`;
  }
  if (existsAt(join(admin, 'locked'))) {
    return `the worktree at ${path} is locked (git worktree lock); abandon it to remove it anyway`;
  }
  const status = await gitOn(
    { run, repository: workspace.git_common_dir, worktree: path },
    { gitDir: admin, workTree: path },
    ['status', '--porcelain', '--untracked-files=all'],
    true,
  );
  if (!status.ok) {
    return `git cannot read the worktree at ${path} (${status.error}); abandon it to discard it`;
  }
  const changed = status.stdout.split('\n').filter((line) => line !== '').length;
  if (changed === 0) return null;
  return `the worktree of ${nodeId} has ${changed} uncommitted ${changed === 1 ? 'change' : 'changes'} (git status); commit what you need to ${workspace.branch}, or abandon it to discard them`;
}

/** Removes a worktree `closeRefusal` let go, and its entry, keeping the branch. */
export function closeGitWorktree(
  run: GitRunner,
  workspace: Workspace,
  path: string,
): Promise<GitRemoval> {
  return removeGitWorktree(run, workspace, path, { keepBranch: true });
}

/**
 * Removes the worktree at `path` whatever it holds (a `.git` the node rewrote, a link put in
 * its place), its entry, locked or not, and its branch.
 */
export function abandonGitWorktree(
  run: GitRunner,
  workspace: Workspace,
  path: string,
): Promise<GitRemoval> {
  return removeGitWorktree(run, workspace, path, { keepBranch: false });
}

/**
 * The tree from here, never following a link (in git's sandbox it is a mount point, which git
 * cannot delete), then its entry (`forgetEntry`) and, unless kept, its branch: after any add
 * under way on the repository (`onRepository`).
 */
function removeGitWorktree(
  run: GitRunner,
  workspace: Workspace,
  path: string,
  { keepBranch }: { keepBranch: boolean },
): Promise<GitRemoval> {
  return onRepository(workspace, async () => {
    const removed = existsAt(path);
    if (removed) rmSync(path, { recursive: true, force: true });
    await forgetEntry(run, workspace, path);
    // A branch checked out elsewhere (the person's own checkout) stays: `kept` says so.
    if (!keepBranch && (await branchExists(run, workspace))) {
      await onRepo(run, workspace)(['branch', '-D', workspace.branch]);
    }
    return { removed, branch: await branchOutcome(run, workspace) };
  });
}

/**
 * Drops the entry of the worktree that was at `path` (gone now, or an empty directory the
 * sandbox does not show), locked or not. Not `git worktree prune`: in the sandbox every other
 * worktree of the repository is out of sight, and a prune would take each for gone. git's
 * remove accepts a worktree whose directory is missing (and drops its entry); where no entry
 * is, it fails, which changes nothing.
 */
async function forgetEntry(run: GitRunner, workspace: Workspace, path: string): Promise<void> {
  await onRepo(run, workspace)(['worktree', 'remove', '--force', '--force', path]);
}

/** git on the repository alone (its refs and entries; no worktree). */
function onRepo(run: GitRunner, workspace: Workspace): (args: string[]) => Promise<GitResult> {
  return (args) => gitOn({ run, repository: workspace.git_common_dir }, gitDirOf(workspace), args);
}

function gitDirOf(workspace: Workspace): { gitDir: string } {
  return { gitDir: workspace.git_common_dir };
}

async function branchOutcome(run: GitRunner, workspace: Workspace): Promise<GitRemoval['branch']> {
  return { name: workspace.branch, repo: workspace.repo, kept: await branchExists(run, workspace) };
}

async function branchExists(run: GitRunner, workspace: Workspace): Promise<boolean> {
  return (await onRepo(run, workspace)(branchQuery(workspace))).ok;
}

function branchQuery(workspace: Workspace): string[] {
  return ['rev-parse', '--verify', '--quiet', `refs/heads/${workspace.branch}`];
}

/** git names a worktree's admin directory after the worktree's: the node id (see `addGitWorktree`). */
function adminDir(workspace: Workspace, nodeId: string): string {
  return join(workspace.git_common_dir, 'worktrees', nodeId);
}

/** Whether the worktree's `.git` is the file git wrote there: `gitdir: <its entry>`. */
function leadsTo(path: string, admin: string): boolean {
  const file = join(path, '.git');
  if (lstatSync(file, { throwIfNoEntry: false })?.isFile() !== true) return false;
  const line = head(file).trim();
  // Absolute as git writes it, or relative to the worktree (`worktree.useRelativePaths`).
  return line.startsWith('gitdir: ') && resolve(path, line.slice('gitdir: '.length)) === admin;
}

/** The first bytes of a file: a `.git` line, whatever the node left there. */
function head(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
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

function isEmptyDirectory(path: string): boolean {
  return isDirectory(path) && readdirSync(path).length === 0;
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
