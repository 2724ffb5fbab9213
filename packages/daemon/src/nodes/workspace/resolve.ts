/**
 * A git workspace asked for at create (docs/nodes.md "Workspaces"), checked and recorded: the
 * repository must be a git work tree with a commit to start from, and what the node's sandbox
 * will mount read-write (the common git directory) and what its worktree holds (the repository)
 * must lie inside a `svc:files:rw:user:<dir>` of the creator's ceiling, or the app form
 * `svc:files:rw:app:<id>:<dir>` naming the creator's own app (SPEC: host files a run of that app
 * may mount); the owner's ceiling covers all. Nothing in svc's own home but its worktrees.
 */
import { realpathSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { type Ceiling, isWithin, listCovers, type workspaceInputSchema } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { wantedScope } from '../../files/access.ts';
import { revParse } from '../../worktrees/git.ts';
import { branchName } from '../../worktrees/git-worktree.ts';
import type { Workspace } from '../store/nodes.ts';

/** As a body gives it, or a profile holds it (`base: null`, its HEAD). */
export type WorkspaceInput = Omit<z.output<typeof workspaceInputSchema>, 'base'> & {
  base?: string | null | undefined;
};

/** Who asks, and where the answer must stay out of. */
export interface WorkspaceCheck {
  /** The creator's ceiling (`null`: the owner's, every path). */
  ceiling: Ceiling;
  /** The creator's app, whose app form of a files scope counts too (`null`: the owner's). */
  appId: string | null;
  /** svc's home: refused but for its `worktrees/`. */
  home: string | undefined;
  /** Where the request came from, for messages: the body, or a profile. */
  from: string;
}

const USER_RW = 'svc:files:rw:user:';
const REPO_FIELD = 'workspace.repo';
const BASE_FIELD = 'workspace.base';

/**
 * The workspace of new node `nodeId`, or 403 `scope_missing` (`field` the scope wanted) / 422
 * `validation_failed` (`field` `workspace.repo` or `workspace.base`) saying why not.
 */
export function resolveWorkspace(
  input: WorkspaceInput,
  nodeId: string,
  check: WorkspaceCheck,
): Workspace {
  // The path as given first: whether a path outside the creator's directories exists stays unsaid.
  const given = posix.normalize(input.repo).replace(/(.)\/+$/, '$1');
  requireCovered(given, check);
  const real = realDirectory(given, check);
  requireCovered(real, check);
  const found = revParse({ cwd: real }, [
    '--is-inside-work-tree',
    '--show-toplevel',
    '--path-format=absolute',
    '--git-common-dir',
  ]);
  const [inside, top, common] = found.stdout.split('\n');
  if (!found.ok || inside !== 'true' || top === undefined || common === undefined) {
    throw invalid(
      `${check.from}: ${input.repo} is not in a git work tree (${found.ok ? 'a bare repository' : found.error})`,
      REPO_FIELD,
    );
  }
  const repo = realDirectory(top, check);
  const gitCommonDir = realDirectory(common, check);
  // Both are the node's: the worktree is checked out of the repository, and its sandbox mounts
  // the common directory read-write (which may lie elsewhere: a `--separate-git-dir` clone).
  requireCovered(repo, check);
  requireCovered(gitCommonDir, check);
  const base = input.base ?? null;
  const start = base ?? 'HEAD';
  const commit = revParse({ gitDir: gitCommonDir }, [
    '--verify',
    '--quiet',
    '--end-of-options',
    `${start}^{commit}`,
  ]);
  if (!commit.ok) {
    throw base === null
      ? invalid(`${check.from}: ${repo} has no commit to start a branch from`, REPO_FIELD)
      : invalid(`${check.from}: ${base} names no commit in ${repo}`, BASE_FIELD);
  }
  return { repo, git_common_dir: gitCommonDir, branch: branchName(nodeId), base };
}

/**
 * A fork's workspace: the source's repository on a branch of its own, started from the source's
 * branch head; the forking token must hold the repository as a creator would.
 */
export function forkWorkspace(source: Workspace, nodeId: string, check: WorkspaceCheck): Workspace {
  requireCovered(source.repo, check);
  requireCovered(source.git_common_dir, check);
  return { ...source, branch: branchName(nodeId), base: source.branch };
}

function requireCovered(path: string, check: WorkspaceCheck): void {
  if (check.ceiling === null) return;
  const wanted = wantedScope('rw', path) ?? 'svc:files:rw:user:/';
  if (listCovers(check.ceiling, wanted)) return;
  const dir = wanted.slice(USER_RW.length);
  if (check.appId !== null && listCovers(check.ceiling, `svc:files:rw:app:${check.appId}:${dir}`)) {
    return;
  }
  throw new ApiError(
    'scope_missing',
    `${check.from}: no files scope of this token covers ${path} read-write (needs '${wanted}' or wider, or its app form); a git workspace must lie inside a svc:files:rw:user:<dir> its creator holds`,
    { field: wanted, received: check.ceiling },
  );
}

/** The realpath of an existing directory outside svc's home (its worktrees aside), else 422. */
function realDirectory(path: string, check: WorkspaceCheck): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw invalid(`${check.from}: no directory at ${path}`, REPO_FIELD);
  }
  if (!statSync(real).isDirectory()) {
    throw invalid(`${check.from}: ${path} is not a directory`, REPO_FIELD);
  }
  const home = check.home === undefined ? undefined : realOrSelf(check.home);
  if (home !== undefined && isWithin(home, real) && !isWithin(`${home}/worktrees`, real)) {
    throw invalid(
      `${check.from}: ${path} is in svc's own home, which no node's sandbox mounts`,
      REPO_FIELD,
    );
  }
  return real;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function invalid(message: string, field: string): ApiError {
  return new ApiError('validation_failed', message, { field });
}
