/** The unix sockets where brokers serve their node's viewers (see supervisor.ts). */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { socketPathProblem } from '@svc/protocol/home';
import { acceptsConnections } from './socket-probe.ts';
import type { SupervisorState } from './supervisor-state.ts';

/** The node's viewer socket while it runs on a broker that accepts a connection there. */
export async function viewerSocket(state: SupervisorState, nodeId: string): Promise<string | null> {
  const live = () => {
    const broker = state.active.get(nodeId);
    // A broker still exiting after its node ended (or parked) is no longer one to attach to.
    if (broker === undefined || state.deps.store.nodes.get(nodeId)?.state !== 'running') {
      return null;
    }
    return broker.process.alive && existsSync(broker.viewerSocket) ? broker : null;
  };
  const broker = live();
  if (broker === null) return null;
  // The file appears when the broker binds (after its claim) and goes when it closes; only a
  // connect tells that it listens, and the node's broker is still that one once it has.
  if (!(await acceptsConnections(broker.viewerSocket))) return null;
  return live() === broker ? broker.viewerSocket : null;
}

/**
 * `<dir>/<node id>.sock`, or `<dir>/<hash of the id>.sock` when that would pass the unix socket
 * path limit (a deep home); the hash keeps it unique per node.
 */
export function viewerSocketPath(dir: string, nodeId: string): string {
  const named = join(dir, `${nodeId}.sock`);
  if (socketPathProblem(named) === null) return named;
  return join(dir, `${createHash('sha256').update(nodeId).digest('hex').slice(0, 16)}.sock`);
}
