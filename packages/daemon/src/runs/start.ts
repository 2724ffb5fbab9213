/** `runs.start`: a root node and its run, in one transaction; the app's grant bounds the tree. */
import { newId } from '@svc/protocol';
import { appOf } from '../access/app-caller.ts';
import { scopeCeiling } from '../nodes/ceiling.ts';
import type { CreateBody } from '../nodes/create.ts';
import type { Principal } from '../ports.ts';
import type { RunDeps } from './deps.ts';
import type { RunRow } from './store.ts';
import { type Run, toRun } from './view.ts';

export function startRun(
  deps: Pick<RunDeps, 'store' | 'events' | 'nodes'>,
  body: Omit<CreateBody, 'parent_id'>,
  principal: Principal,
): Run {
  // A node makes children; a run it started would outlive it, outside the tree it sees.
  appOf(principal, 'runs.start');
  return deps.store.db.transaction((afterCommit) => {
    const runId = newId('run');
    const grant = scopeCeiling(principal);
    const at = new Date().toISOString();
    // The run row refers to its root, so the root is inserted first.
    const root = deps.nodes.insertNode(body, principal, afterCommit, { runId, grant });
    const row: RunRow = {
      id: runId,
      app_id: principal.appId,
      node_id: root.id,
      title: root.title,
      grant_scopes: grant,
      created_at: at,
      updated_at: at,
    };
    deps.store.runs.insert(row);
    const run = toRun(deps.store, row, root);
    deps.events.record('run.started', runId, { run });
    return run;
  });
}
