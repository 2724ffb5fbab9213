/**
 * A profile changed (its network, its command env, an env value): each node running on it gets
 * its env and sandbox plan made again, as its next launch would make them, and its host closes
 * the old sandbox (`../broker/node-loop.ts`, `reconfine`). So the person's narrowing of a
 * profile reaches the nodes that run on it now, not only their next launch (docs/security.md,
 * "Network.").
 */
import type { NodeConfinement } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { SupervisorState } from './supervisor-state.ts';

/** Profile `name` changed: its running nodes are reconfined. */
export function reconfineProfile(
  deps: {
    store: Pick<Store, 'nodes'>;
    // As `Supervisor` has them (`./supervisor.ts`, which imports this file).
    supervisor: { brokers(): { node_id: string }[]; reconfine(nodeId: string): void };
  },
  name: string,
): void {
  for (const { node_id } of deps.supervisor.brokers()) {
    if (deps.store.nodes.get(node_id)?.profile === name) deps.supervisor.reconfine(node_id);
  }
}

/** Hands node `nodeId`'s loop, if one runs, its env and plan as they are now. */
export function reconfineNode(state: SupervisorState, nodeId: string): void {
  const active = state.active.get(nodeId);
  const row = state.deps.store.nodes.get(nodeId);
  if (active === undefined || row === undefined) return;
  let parts: NodeConfinement;
  try {
    parts = state.deps.hooks.confinementOf(row);
  } catch (error) {
    // No plan can be made now: none rather than the old one, so its commands are refused (its
    // bash fails closed without a plan) until a launch makes one.
    state.deps.logger.error({ err: error, node_id: nodeId }, 'no sandbox plan for a running node');
    parts = { env: {} };
  }
  active.process.reconfine(parts);
}
