/** The unix sockets where brokers serve their node's viewers (see supervisor.ts). */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { socketPathProblem } from '@svc/protocol/home';
import { acceptsConnections } from './socket-probe.ts';
import type { SupervisorState } from './supervisor-state.ts';

/**
 * How long an attach waits for the node's host to open its viewer socket: a host answers as soon
 * as its loop gets to it, a loaded one within a few ms; one that does not answer is no broker to
 * hand a viewer to.
 */
const VIEW_WAIT_MS = 5_000;

/**
 * The node's viewer socket while it runs on a broker that accepts a connection there. The broker
 * opens it on the first ask (`BrokerProcess.view`), so a node nobody watches makes none.
 */
export async function viewerSocket(state: SupervisorState, nodeId: string): Promise<string | null> {
  const live = () => {
    const broker = state.active.get(nodeId);
    // A broker still exiting after its node ended (or parked) is no longer one to attach to.
    if (broker === undefined || state.deps.store.nodes.get(nodeId)?.state !== 'running') {
      return null;
    }
    return broker.process.alive ? broker : null;
  };
  const broker = live();
  if (broker === null || !(await within(broker.process.view(), VIEW_WAIT_MS))) return null;
  // The file goes when the broker closes it; only a connect tells that it still listens, and
  // the node's broker is still that one once it has.
  if (!existsSync(broker.viewerSocket) || !(await acceptsConnections(broker.viewerSocket))) {
    return null;
  }
  return live() === broker ? broker.viewerSocket : null;
}

/** What `answer` settles to, or false once `ms` have passed. */
async function within(answer: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
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
