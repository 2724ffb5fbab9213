/**
 * The pool of agent hosts (see supervisor.ts): each runs up to `hostCapacity` nodes' loops; a
 * launch takes a slot on the fullest host with room, so as few hosts run as the nodes need.
 * Warm room is kept ahead of need (a host loads its modules before its first node), and the
 * entry is bundled for later hosts to load instead of the `.ts` entry.
 */
import { sweepWrites } from '../nodes/workspace/write-notes.ts';
import { type AgentHost, spawnHost } from './agent-host.ts';
import { brokerBundle } from './broker-bundle.ts';
import type { BrokerProcess } from './broker-process.ts';
import { deprioritize } from './host-niceness.ts';
import type { SupervisorState } from './supervisor-state.ts';

/** The first launch: warm room is kept from now on, and the entry's bundle is built. */
export function warmUp(state: SupervisorState): void {
  if (state.warm) return;
  state.warm = true;
  if (state.entryGiven) return;
  const { logger } = state.deps;
  brokerBundle(state.entry, state.cache).then(
    (file) => {
      state.script = file;
      logger.info({ bundle: file }, 'agent hosts run the bundled entry');
    },
    (error: unknown) => {
      logger.warn({ err: error }, 'agent hosts run the .ts entry: the bundle could not be built');
    },
  );
}

/**
 * Room for every free slot (at least one, for the next slot to free up) up to one host's worth:
 * at most one host waits with no node, as a burst fills the hosts one after another; in a lull,
 * room for one, and a host left with no node exits unless it is that.
 */
export function topUpSpares(state: SupervisorState): void {
  const hosts = live(state);
  if (state.lull) {
    for (const host of hosts.filter((h) => h.load === 0)) {
      if (room(state) - host.capacity >= 1) {
        state.hosts.splice(state.hosts.indexOf(host), 1);
        void host.kill();
      }
    }
  }
  const free = Math.max(1, state.concurrency - state.active.size);
  const wanted = state.lull ? 1 : Math.min(state.hostCapacity, free);
  while (room(state) < wanted) {
    if (startHost(state) === null) return;
  }
}

/** Launches restart the lull's clock; once it runs out, hosts with no node but one exit. */
export function launched(state: SupervisorState): void {
  state.lull = false;
  clearTimeout(state.lullTimer);
  state.lullTimer = setTimeout(() => {
    state.lull = true;
    topUpSpares(state);
  }, state.spareIdleMs);
  // A quiet daemon exits as if no timer were set.
  state.lullTimer.unref();
}

/**
 * A slot on the fullest live host with room, else on a host started now; for a node whose last
 * loop crashed, a host of its own, which exits with that loop.
 */
export function takeBroker(state: SupervisorState, nodeId: string): BrokerProcess {
  if (state.isolated.has(nodeId)) {
    // A warm host with no node if there is one (the relaunch starts no process), else a new one.
    const alone = live(state).find((h) => h.load === 0) ?? startHost(state, true, 1);
    const lease = alone.lease();
    alone.isolate();
    void lease.exited.then(() => alone.kill());
    return lease;
  }
  let best: AgentHost | undefined;
  for (const host of live(state)) {
    if (host.load < host.capacity && (best === undefined || host.load > best.load)) best = host;
  }
  best ??= startHost(state, true);
  return best.lease();
}

/** Free slots on the live hosts. */
function room(state: SupervisorState): number {
  return live(state).reduce((sum, h) => sum + Math.max(0, h.capacity - h.load), 0);
}

/** The hosts still running; the dead are forgotten. */
function live(state: SupervisorState): AgentHost[] {
  for (let i = state.hosts.length - 1; i >= 0; i--) {
    // Gone, or being killed.
    if (!state.hosts[i]!.alive) state.hosts.splice(i, 1);
  }
  return state.hosts;
}

function startHost(state: SupervisorState, needed: true, capacity?: number): AgentHost;
function startHost(state: SupervisorState, needed?: false): AgentHost | null;
function startHost(
  state: SupervisorState,
  needed = false,
  capacity = state.hostCapacity,
): AgentHost | null {
  let host: AgentHost;
  try {
    host = spawnHost({
      entry: state.script,
      cwd: state.worktrees,
      env: state.env,
      logDir: state.logs,
      marginMs: state.stopMarginMs,
      capacity,
      tmpRoot: state.hostsTmp,
    });
  } catch (error) {
    // A launch that needs one reports it; warm room is tried again at the next fill.
    if (needed) throw error;
    state.deps.logger.warn({ err: error }, 'could not start an agent host');
    return null;
  }
  state.hosts.push(host);
  const { pid } = host;
  deprioritize(pid, state.hostNiceness, (why) =>
    state.deps.logger.warn({ pid, why }, "could not lower an agent host's priority"),
  );
  void host.exited.then(() => {
    // Only now, with every loop of it gone: what its sandboxes and file writes left.
    state.deps.brokerGone?.(pid);
    sweepWrites(state.writes, (p) => p === pid);
    const at = state.hosts.indexOf(host);
    if (at >= 0) state.hosts.splice(at, 1);
  });
  return host;
}
