/**
 * The supervisor: runs the agent loop of each active node, at most `concurrency` at a time, in
 * agent hosts (`../broker/host.ts`): processes that each run up to `hostCapacity` nodes' loops.
 * The rest of the supervisor sees one `BrokerProcess` per node, a lease on a host
 * (`./host-lease.ts`).
 *
 * - A node is started when it is `queued` and a slot is free, oldest first: the supervisor mints
 *   a node token (the node's scopes and app, bound to the node), hands a host the node's launch
 *   message on stdin, and records the loop (`brokers`, with the host's pid). The loop itself
 *   takes the node (`broker.claim`: queued → running). First its worktree is made (or kept from
 *   an earlier launch): a plain directory, or a `git worktree` for a node with a workspace, made
 *   in the background while the node holds its slot, and named in the launch message
 *   (`workspace`) for the sandbox; a worktree git cannot make fails the node (`worktree_failed`).
 * - Warm room (`./spares.ts`): loading a host's modules costs far more than the fork, so room for
 *   every free slot (at least one) is kept on hosts started ahead of need, as few as that takes;
 *   a launch takes the fullest host with room. It starts with the first launch, so a daemon
 *   that runs no node starts no process for nothing. A daemon that launches nothing for
 *   `spareIdleMs` (30 s) keeps room for one: a host left with no node exits unless it is that.
 *   From then on the default entry is also built into one ESM file (`./broker-bundle.ts`), which
 *   later hosts load in about half the CPU; the `.ts` entry serves until it is ready, or for
 *   good when esbuild is absent.
 * - When a node's loop ends its token is revoked. If its node is still `running` (or it ended
 *   before claiming the node), that is a crash: the hooks record a fault and relaunch the node
 *   from its last recorded turn, or fail it once the relaunch budget is spent. A host that exits
 *   ends every loop it held that way, each node charged its own relaunch and relaunched on a
 *   host of its own (`isolated`), so one node cannot burn the others' budgets twice.
 * - `stop` (cancel, interrupt) ends a node's loop and every process it started within a second:
 *   the host aborts the loop, and drops it after the grace period; a host that does not confirm
 *   in time is killed whole.
 * - At start, hosts the previous daemon left behind are killed and their tokens revoked, and
 *   nodes left `running` are relaunched (`recover`). At close, hosts are killed outright: the
 *   nodes stay `running` and the next start relaunches them, re-running only what no record
 *   holds. A host the previous daemon left exits by itself: its stdin closes with that daemon.
 * - Viewers (`nodes.attach`): each launch names a unix socket under `<home>/run/viewers` (0700)
 *   where the node's loop, once it holds its node, streams its transcript
 *   (`../broker/viewer-socket.ts`); `viewerSocket` answers it while the node runs and the socket
 *   accepts a connection (`./socket-probe.ts`): never a path nobody listens on. A loop that ends
 *   without removing it has it removed here.
 */
import type { NodeRuntime } from '../ports.ts';
import { withDeps } from '../with-deps.ts';
import { schedule } from './fill.ts';
import { reconfineNode } from './reconfine.ts';
import { startSupervisor } from './recover.ts';
import { closeSupervisor, stopNode } from './stop.ts';
import {
  createSupervisorState,
  type SupervisorDeps,
  type SupervisorOptions,
} from './supervisor-state.ts';
import { viewerSocket } from './viewers.ts';

export {
  DEFAULT_CONCURRENCY,
  DEFAULT_GRACE_MS,
  DEFAULT_SPARE_IDLE_MS,
  type SupervisorDeps,
  type SupervisorOptions,
} from './supervisor-state.ts';
export { viewerSocketPath } from './viewers.ts';

/**
 * A concurrency given as text (`--brokers`, `SVC_BROKERS`): a positive integer; `undefined` or
 * empty gives `undefined` (the default). Anything else is a `TypeError` naming `name`.
 */
export function parseConcurrency(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new TypeError(`${name} must be a positive integer; received ${JSON.stringify(text)}`);
  }
  return n;
}

export interface Supervisor extends NodeRuntime {
  /** Recovers what the previous daemon left, then starts queued nodes. */
  start(): void;
  /** Kills every agent host (the nodes stay `running` for the next start); no new one starts. */
  close(): Promise<void>;
  /** The live nodes' loops: node id and the pid of the host running it. */
  brokers(): { node_id: string; pid: number }[];
  /** Slots, brokers holding a node, and queued nodes waiting for a slot. */
  stats(): { concurrency: number; active: number; queued: number };
  /** Hands a running node its env and sandbox plan made again (`./reconfine.ts`). */
  reconfine(nodeId: string): void;
}

export function createSupervisor(
  deps: SupervisorDeps,
  options: SupervisorOptions = {},
): Supervisor {
  const state = createSupervisorState(deps, options);
  state.schedule = () => schedule(state);
  return {
    wake: state.schedule,
    stop: withDeps(state, stopNode),
    start: withDeps(state, startSupervisor),
    close: withDeps(state, closeSupervisor),
    viewerSocket: withDeps(state, viewerSocket),
    brokers: () => [...state.active].map(([node_id, b]) => ({ node_id, pid: b.process.pid })),
    reconfine: withDeps(state, reconfineNode),
    stats: () => ({
      concurrency: state.concurrency,
      active: state.active.size,
      queued: deps.store.nodes.countInState('queued'),
    }),
  };
}
