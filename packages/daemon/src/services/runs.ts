/**
 * Runs (docs/nodes.md "runs"): an app's handle on a root node it started. State, budgets and
 * outcome are the root's, usage the tree's sum; the run row adds the title, the owner app and
 * the app's grant, the ceiling of every node of the tree. An app sees only its own runs (and
 * reads, not changes, those of an app its `svc:conversations:read:app:<id>` names).
 */
import { newId, type Run } from '@svc/protocol';
import { appOf } from '../access/app-caller.ts';
import { requireScope } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { Mail } from '../store/mail.ts';
import { type NodeRow, toNode, type Visibility, type WaitingOn } from '../store/nodes.ts';
import type { RunRow } from '../store/runs.ts';
import type { EventLog } from './events.ts';
import { requireMayMail, scopeCeiling } from './node-ceiling.ts';
import type { CreateBody, NodeService } from './nodes.ts';
import { type RemovedNode, removeTree } from './tree-removal.ts';

export type { Run };

/**
 * @param removed called after a `runs.delete` commits with the removed nodes (the daemon
 * removes their worktrees)
 */
export function runService(
  store: Store,
  events: EventLog,
  nodes: NodeService,
  removed: (nodes: readonly RemovedNode[]) => void = () => {},
) {
  function toRun(run: RunRow, root: NodeRow): Run {
    const node = toNode(root);
    return {
      id: run.id,
      app_id: run.app_id,
      node_id: run.node_id,
      title: run.title,
      state: node.state,
      state_reason: node.state_reason,
      waiting_on: node.waiting_on,
      profile: node.profile,
      model: node.model,
      scopes: node.scopes,
      budgets: node.budgets,
      usage: store.nodes.treeUsage(root.id),
      outcome: node.outcome,
      metadata: node.metadata,
      created_at: run.created_at,
      updated_at: run.updated_at > node.updated_at ? run.updated_at : node.updated_at,
      finished_at: node.finished_at,
    };
  }

  /**
   * The run if the caller may see it (the owner every run, an app its own, a node token the run
   * of its tree); else 404, as if it did not exist.
   */
  function visibleRun(id: string, principal: Principal): { run: RunRow; root: NodeRow } {
    return runIn(id, nodes.visibility(principal));
  }

  /**
   * `visibleRun` for the routes that change a run. A node token also needs `svc:act` here, as it
   * does for the same operation on the run's root through `/v1/nodes/...` (SPEC: `svc:act` gates
   * messaging nodes); an app needs no scope to change its own runs, and its mail (`message`,
   * `reply`) must stay inside its token's ceiling (`requireMayMail`).
   * @param what the operation, for the refusal: "a node <what> a run"
   */
  function changeableRun(id: string, principal: Principal, what: string) {
    if (principal.kind === 'node') requireScope(principal, 'svc:act', `a node ${what} a run`);
    return visibleRun(id, principal);
  }

  /** `visibleRun` for read routes: an app also sees the runs of the apps it may read. */
  function readableRun(id: string, principal: Principal): { run: RunRow; root: NodeRow } {
    return runIn(id, nodes.readVisibility(principal));
  }

  function runIn(id: string, vis: Visibility): { run: RunRow; root: NodeRow } {
    const run = store.runs.get(id);
    // A run is seen as its root node is: one rule, the nodes' (`VISIBLE`).
    const root = run === undefined ? undefined : store.nodes.visible(run.node_id, vis);
    if (run === undefined || root === undefined) {
      throw new ApiError('not_found', `no run ${id}`, { field: 'id' });
    }
    return { run, root };
  }

  return {
    readableRun,
    toRun,

    /** A root node and its run, in one transaction; the app's grant bounds the whole tree. */
    start(body: Omit<CreateBody, 'parent_id'>, principal: Principal): Run {
      // A node makes children; a run it started would outlive it, outside the tree it sees.
      appOf(principal, 'runs.start');
      return store.db.transaction((afterCommit) => {
        const runId = newId('run');
        const grant = scopeCeiling(principal);
        const at = new Date().toISOString();
        // The run row refers to its root, so the root is inserted first.
        const root = nodes.insertNode(body, principal, afterCommit, { runId, grant });
        const row: RunRow = {
          id: runId,
          app_id: principal.appId,
          node_id: root.id,
          title: root.title,
          grant_scopes: grant === null ? null : JSON.stringify(grant),
          created_at: at,
          updated_at: at,
        };
        store.runs.insert(row);
        const run = toRun(row, root);
        events.record('run.started', runId, { run });
        return run;
      });
    },

    get(id: string, principal: Principal): Run {
      const { run, root } = readableRun(id, principal);
      return toRun(run, root);
    },

    /** `appId`: `undefined` = every app's (owner); else that one's (`null`: the owner's own). */
    list(filter: Parameters<Store['runs']['list']>[0]): Run[] {
      return store.runs.list(filter).map((run) => toRun(run, store.nodes.get(run.node_id)!));
    },

    message(id: string, text: string, principal: Principal): Mail {
      const { root } = changeableRun(id, principal, 'messages');
      requireMayMail(root, principal);
      return nodes.deliver(root, nodes.sender(principal), text);
    },

    /** An answer to a run that stopped to wait for one (it yielded or was interrupted). */
    reply(id: string, text: string, principal: Principal): Mail {
      const { root } = changeableRun(id, principal, 'replies to');
      const waiting = root.waiting_on === null ? null : (JSON.parse(root.waiting_on) as WaitingOn);
      if (root.state !== 'waiting' || waiting?.for !== 'mail') {
        const why = root.state === 'waiting' ? `waits for ${waiting?.for}` : `is '${root.state}'`;
        throw new ApiError(
          'invalid_state',
          `run ${why}; reply answers a run waiting for a message (use runs.message for mail)`,
        );
      }
      requireMayMail(root, principal);
      return nodes.deliver(root, nodes.sender(principal), text);
    },

    async interrupt(id: string, reason: string | undefined, principal: Principal): Promise<Run> {
      const { root } = changeableRun(id, principal, 'interrupts');
      await nodes.interrupt(root.id, reason, principal);
      return this.get(id, principal);
    },

    async cancel(id: string, reason: string | undefined, principal: Principal): Promise<Run> {
      const { root } = changeableRun(id, principal, 'cancels');
      await nodes.cancel(root.id, reason, principal);
      return this.get(id, principal);
    },

    rename(id: string, title: string, principal: Principal): Run {
      return store.db.transaction(() => {
        const { run } = changeableRun(id, principal, 'renames');
        store.runs.rename(run.id, title, new Date().toISOString());
        events.record('run.renamed', run.id, { run_id: run.id, title });
        return this.get(id, principal);
      });
    },

    /**
     * Deletes a final run with its tree, as `removeTree` does, and then its worktrees.
     */
    delete(id: string, principal: Principal): { id: string; deleted: true } {
      return store.db.transaction((afterCommit) => {
        const { run, root } = changeableRun(id, principal, 'deletes');
        if (root.state !== 'done' && root.state !== 'failed' && root.state !== 'cancelled') {
          throw new ApiError(
            'invalid_state',
            `run is '${root.state}'; only a done, failed or cancelled run can be deleted (cancel it first)`,
          );
        }
        const ids = store.nodes.treeIds(root.id);
        const live = ids
          .map((nid) => store.nodes.get(nid)!)
          .filter((n) => n.state === 'queued' || n.state === 'running' || n.state === 'waiting');
        if (live.length > 0) {
          throw new ApiError(
            'invalid_state',
            `run ${id} still has ${live.length} live node(s), e.g. ${live[0]!.id}; cancel them first`,
          );
        }
        const gone = removeTree(store, root.id, run.id);
        events.record('run.deleted', run.id, { run_id: run.id });
        afterCommit(() => removed(gone));
        return { id: run.id, deleted: true as const };
      });
    },
  };
}

export type RunService = ReturnType<typeof runService>;
