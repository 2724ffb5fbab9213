/** Ending brokers on purpose (see supervisor.ts): one node's (`stop`), or all at close. */
import type { SupervisorState } from './supervisor-state.ts';

/** SIGTERM to the node's broker group, SIGKILL to its whole tree after the grace period. */
export async function stopNode(state: SupervisorState, nodeId: string): Promise<void> {
  const broker = state.active.get(nodeId);
  if (broker === undefined) return;
  broker.stopped = true;
  await broker.process.stop(state.graceMs);
  // A broker given its grace has settled what it cut short; one that needed SIGKILL has not.
  state.deps.hooks.stopped(nodeId);
}

/** Kills every broker and spare (the nodes stay `running` for the next start). */
export async function closeSupervisor(state: SupervisorState): Promise<void> {
  const { store, tokens } = state.deps;
  state.closed = true;
  clearTimeout(state.lullTimer);
  const at = new Date().toISOString();
  await Promise.all([
    ...state.spares.splice(0).map((spare) => spare.stop(0)),
    ...[...state.active.values()].map(async (broker) => {
      broker.stopped = true;
      const exit = await broker.process.stop(0);
      tokens.revoke(broker.tokenId);
      const how = exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
      store.brokers.end(broker.tokenId, how, at);
    }),
  ]);
}
