/**
 * Runs (docs/nodes.md "runs"): an app's handle on a root node it started, a view over that tree.
 * The operations of `src/runs/` bound to one set of deps, so the daemon calls `ctx.runs.<op>`.
 */
import type { CreateBody } from '../nodes/create.ts';
import type { Caller } from '../nodes/visibility.ts';
import type { Principal } from '../ports.ts';
import { cancelRun, deleteRun, interruptRun, renameRun } from './changes.ts';
import type { RunDeps } from './deps.ts';
import { messageRun, replyRun } from './mail.ts';
import { getRun, listRuns } from './read.ts';
import { startRun } from './start.ts';
import type { RunFilter } from './store.ts';
import { seenRun } from './view.ts';

export function runService(
  store: RunDeps['store'],
  events: RunDeps['events'],
  nodes: RunDeps['nodes'],
  removed: RunDeps['removed'] = async () => {},
) {
  const deps: RunDeps = { store, events, nodes, removed };
  return {
    seen: (id: string, caller: Caller) => seenRun(store, caller, id),
    start: (body: Omit<CreateBody, 'parent_id'>, p: Principal) => startRun(deps, body, p),
    get: (id: string, caller: Caller) => getRun(deps, id, caller),
    list: (filter: RunFilter) => listRuns(deps, filter),
    message: (id: string, text: string, caller: Caller) => messageRun(deps, id, text, caller),
    reply: (id: string, text: string, caller: Caller) => replyRun(deps, id, text, caller),
    interrupt: (id: string, reason: string | undefined, caller: Caller) =>
      interruptRun(deps, id, reason, caller),
    cancel: (id: string, reason: string | undefined, caller: Caller) =>
      cancelRun(deps, id, reason, caller),
    rename: (id: string, title: string, caller: Caller) => renameRun(deps, id, title, caller),
    delete: (id: string, caller: Caller) => deleteRun(deps, id, caller),
  };
}

export type RunService = ReturnType<typeof runService>;
