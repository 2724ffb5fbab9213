/** Ending brokers on purpose (see supervisor.ts): one node's (`stop`), or all at close. */
import type { SupervisorState } from './supervisor-state.ts';

/** The node's loop aborted in its host, and cut off (commands, sandbox) after the grace period. */
export async function stopNode(state: SupervisorState, nodeId: string): Promise<void> {
  const broker = state.active.get(nodeId);
  if (broker === undefined) return;
  broker.stopped = true;
  await broker.process.stop(state.graceMs);
  // A broker given its grace has settled what it cut short; one that needed SIGKILL has not.
  state.deps.hooks.stopped(nodeId);
}

/** Kills every agent host (the nodes stay `running` for the next start). */
export async function closeSupervisor(state: SupervisorState): Promise<void> {
  const { store, tokens } = state.deps;
  state.closed = true;
  clearTimeout(state.lullTimer);
  const at = new Date().toISOString();
  const brokers = [...state.active.values()];
  for (const broker of brokers) broker.stopped = true;
  await Promise.all([
    ...state.hosts.splice(0).map((host) => host.kill()),
    ...brokers.map(async (broker) => {
      const exit = await broker.process.exited;
      tokens.revoke(broker.tokenId);
      const how = exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
      store.brokers.end(broker.tokenId, how, at);
    }),
  ]);
}
