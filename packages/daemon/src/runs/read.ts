/** Reading runs: one (`runs.get`) or a page (`runs.list`, `runs.listAll`). */
import type { Caller } from '../nodes/visibility.ts';
import type { RunDeps } from './deps.ts';
import type { RunFilter } from './store.ts';
import { type Run, seenRun, toRun } from './view.ts';

export function getRun(deps: Pick<RunDeps, 'store'>, id: string, caller: Caller): Run {
  const { run, root } = seenRun(deps.store, caller, id);
  return toRun(deps.store, run, root);
}

/** `appId`: `undefined` = every app's (owner); else that one's (`null`: the owner's own). */
export function listRuns(deps: Pick<RunDeps, 'store'>, filter: RunFilter): Run[] {
  const { store } = deps;
  return store.runs.list(filter).map((run) => toRun(store, run, store.nodes.get(run.node_id)!));
}
