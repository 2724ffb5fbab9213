/**
 * A broker's exit (see supervisor.ts): what it left goes, its token is revoked, and a node it
 * left `running` (or never claimed) is a crash the hooks account for.
 */
import { rmSync } from 'node:fs';
import type { BrokerExit } from './broker-process.ts';
import { marked, markedInTurns, signalAll } from './process-tree.ts';
import type { Active, SupervisorState } from './supervisor-state.ts';

export async function brokerEnded(
  state: SupervisorState,
  nodeId: string,
  broker: Active,
  exit: BrokerExit,
): Promise<void> {
  const { store, tokens, hooks, logger } = state.deps;
  // First: what the node's commands left running (in a session of their own, init's now if
  // its host died) goes before the node's next loop starts, whose commands carry the same mark
  // when it lands on the same host. A loop that ended on its own is scanned for in slices between
  // turns of the event loop (the node stays active, with no second loop, until it is done); one
  // stopped on purpose at once, before `stopNode` goes on. What the host left of sandboxes and
  // writes goes when the host itself exits (`./spares.ts`): it may run other nodes still.
  // Only the processes forked since its launch can carry its mark: those are read, not all.
  // A confined loop's own end reads none: its host closed its sandbox first, and the kernel
  // kills what a PID namespace holds when it ends (a host that died takes its launcher and its
  // sandboxes along: --die-with-parent). The scan cost the daemon about 1 ms of CPU a node (the
  // listing of /proc and an environ read per new process), a tenth of its share with 8 active.
  const { pid } = broker.process;
  const found = broker.stopped
    ? marked(nodeId, pid, broker.pids)
    : broker.confined
      ? []
      : await markedInTurns(nodeId, pid, broker.pids);
  signalAll(found, 'SIGKILL');
  state.active.delete(nodeId);
  rmSync(broker.viewerSocket, { force: true });
  const how = exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
  logger.info({ node_id: nodeId, exit: how }, 'broker exited');
  if (state.closed) return; // the database may be closing; `close` ends the rows itself
  try {
    const claimed = store.brokers.get(broker.tokenId)?.claimed_at != null;
    tokens.revoke(broker.tokenId);
    store.brokers.end(broker.tokenId, how, new Date().toISOString());
    hooks.ended(nodeId);
    const nodeState = store.nodes.get(nodeId)?.state;
    if (!broker.stopped && (nodeState === 'running' || (nodeState === 'queued' && !claimed))) {
      hooks.crashed(nodeId, `the broker exited (${how}) while the node ran`);
      // Relaunched alone (`./spares.ts`), unless that was its last chance.
      if (store.nodes.get(nodeId)?.state === 'queued') state.isolated.add(nodeId);
      else state.isolated.delete(nodeId);
    } else {
      state.isolated.delete(nodeId);
    }
  } catch (error) {
    logger.error({ err: error, node_id: nodeId }, 'could not record a broker exit');
  }
  state.schedule();
}
