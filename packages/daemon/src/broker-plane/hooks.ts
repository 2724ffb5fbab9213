/**
 * The supervisor's hooks (`SupervisorHooks`): a launch's model and env, and what a crash, a lost
 * broker or an unlaunchable node does to the node.
 */
import type { ModelChoice } from '../models/types.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import type { NodeConfinement, SupervisorHooks } from '../ports.ts';
import { now, type PlaneDeps } from './deps.ts';
import { fault } from './fault.ts';

export function supervisorHooks(deps: PlaneDeps): SupervisorHooks {
  const { store, events, models, profiles, sandbox } = deps;
  const confinementOf = (node: NodeRow): NodeConfinement => ({
    env: profiles.envValues(node.profile),
    sandbox: sandbox.forNode(node),
  });
  return {
    launchOf(node) {
      const stored = node.model;
      const connection = models.connection(stored as ModelChoice);
      return {
        model: {
          provider: connection.provider,
          model: connection.model,
          ...(connection.apiKey !== undefined && { api_key: connection.apiKey }),
          ...(connection.baseUrl !== undefined && { base_url: connection.baseUrl }),
          ...(connection.script !== undefined && { script: connection.script }),
        },
        ...confinementOf(node),
      };
    },
    confinementOf,
    unlaunchable(nodeId, error, code = 'model_not_ready') {
      const message = error instanceof Error ? error.message : String(error);
      fault(deps, nodeId, { code, message, fatal: true }, true);
    },
    crashed(nodeId, message) {
      fault(deps, nodeId, { code: 'broker_crashed', message, fatal: false }, true);
    },
    // A stopped node's broker may still settle its calls (as interrupted), so a relaunch does not
    // run them again; what it left pending is settled so here.
    stopped(nodeId) {
      store.db.transaction(() => {
        const node = store.nodes.get(nodeId);
        const last = store.turns.get(nodeId, store.turns.lastIndex(nodeId));
        if (node === undefined || last === undefined) return;
        const output = `interrupted: ${node.state_reason ?? 'the node was stopped'}`;
        for (const call of last.tool_calls) {
          if (call.status !== 'pending') continue;
          const result = { status: 'error', output, job_id: null, finished_at: now() } as const;
          store.turns.settleToolCall(nodeId, call.id, result);
          const tool_call = { ...call, ...result };
          events.record('node.tool', nodeId, {
            node_id: nodeId,
            turn_index: last.index,
            tool_call,
          });
        }
      });
    },
    ended(nodeId) {
      store.db.transaction(() => {
        for (const jobId of store.jobs.running(nodeId)) {
          const end = { state: 'cancelled', exit_code: null, finished_at: now() } as const;
          const job = store.jobs.settle(nodeId, jobId, end);
          if (job !== undefined) events.record('node.job', nodeId, { node_id: nodeId, job });
        }
      });
    },
    lost(nodeId) {
      const message =
        'the daemon stopped while the node ran; relaunched from its last recorded turn';
      fault(deps, nodeId, { code: 'broker_lost', message, fatal: false }, false);
    },
  };
}
