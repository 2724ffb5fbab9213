/**
 * A broker's exit (see supervisor.ts): what it left goes, its token is revoked, and a node it
 * left `running` (or never claimed) is a crash the hooks account for.
 */
import { rmSync } from 'node:fs';
import { sweepWrites } from '../nodes/workspace/write-notes.ts';
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
  // First: what a broker that died unasked left running (init holds it now) goes before the
  // node's next broker starts, whose processes carry another mark. A broker that ended on its
  // own is scanned for in slices between turns of the event loop (the node stays active, with
  // no second broker, until it is done); one stopped on purpose at once, before `stopNode` goes
  // on.
  const pid = broker.process.pid;
  signalAll(broker.stopped ? marked(nodeId, pid) : await markedInTurns(nodeId, pid), 'SIGKILL');
  state.deps.brokerGone?.(broker.process.pid);
  state.active.delete(nodeId);
  rmSync(broker.viewerSocket, { force: true });
  // The temp file of a write its file tool was making when it was killed.
  sweepWrites(state.writes, (pid) => pid === broker.process.pid);
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
    }
  } catch (error) {
    logger.error({ err: error, node_id: nodeId }, 'could not record a broker exit');
  }
  state.schedule();
}
