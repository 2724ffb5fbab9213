/**
 * The daemon's `GitRunner` (`../worktrees/git.ts`): each git call on a node's repository runs as
 * a confined command does, in a sandbox of its own that shows the system, the repository's common
 * git directory and the node's worktree, and nothing else: not `SVC_HOME`, not the person's home,
 * no network. A filter or hook the repository's config names (which the node, or an app with a
 * files scope on it, may have written) then reaches only what they could write already. Where
 * commands run unconfined (`--sandbox off`, the person's choice) git does too; where this host
 * cannot confine, the call throws 503 `sandbox_unavailable`, as a command would.
 */

import type { SandboxPlan } from '../sandbox/plan.ts';
import {
  bareGit,
  GIT_TIMEOUT_MS,
  type GitCall,
  type GitRunner,
  resultOf,
} from '../worktrees/git.ts';
import { runBash } from './run.ts';

/** A git call's own sandbox: `call.repository` and `call.worktree` read-write, nothing more. */
export type GitPlan = (call: GitCall) => SandboxPlan;

/** Never aborted: a git call ends, or its timeout kills it. */
const NEVER = new AbortController().signal;

export function confinedGit(planOf: GitPlan): GitRunner {
  return async function runGit(call) {
    const plan = planOf(call);
    if (plan.mode === 'off') return bareGit(call);
    const result = await runBash(
      {
        command: `exec git ${call.args.map(quoted).join(' ')}`,
        cwd: call.worktree ?? call.repository,
        // Its HOME is the worktree, where the node may have left a `.gitconfig`: no global config.
        env: { ...call.env, GIT_CONFIG_GLOBAL: '/dev/null' },
        timeout_ms: GIT_TIMEOUT_MS,
      },
      NEVER,
      { plan },
    );
    return resultOf(result.exit_code === 0, result.stdout, result.stderr, result.signal !== null);
  };
}

/** One shell word, whatever it holds. */
function quoted(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}
