/** The supervisor's start: its directories, and what the previous daemon left (supervisor.ts). */
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../lifecycle/proc-stat.ts';
import { PRIVATE_TMP_ENV } from '../sandbox/private-tmp.ts';
import { descendants, entryStarts, marked, signalAll } from './process-tree.ts';
import type { SupervisorState } from './supervisor-state.ts';

/** Recovers what the previous daemon left, then starts queued nodes. */
export function startSupervisor(state: SupervisorState): void {
  const { worktrees, logs, viewers, hostsTmp } = state;
  mkdirSync(worktrees, { recursive: true, mode: 0o700 });
  mkdirSync(logs, { recursive: true, mode: 0o700 });
  // Sockets a previous daemon's brokers left are stale: their brokers are killed below.
  rmSync(viewers, { recursive: true, force: true });
  mkdirSync(viewers, { recursive: true, mode: 0o700 });
  chmodSync(viewers, 0o700);
  // So are the private directories of its hosts (each removed when its host exits, unless the
  // daemon went first).
  rmSync(hostsTmp, { recursive: true, force: true });
  mkdirSync(hostsTmp, { recursive: true, mode: 0o700 });
  recover(state);
  state.schedule();
}

/** Brokers of a previous daemon: killed (when still ours and alive), tokens revoked. */
function recover(state: SupervisorState): void {
  const { store, tokens, hooks } = state.deps;
  const at = new Date().toISOString();
  for (const row of store.brokers.live()) {
    if (row.pid !== null && isOurHost(row.pid, state)) {
      signalAll([{ pid: row.pid, ppid: 0, pgid: row.pid }, ...descendants(row.pid)], 'SIGKILL');
    }
    // And what it started that outlived it, had it died with the daemon.
    if (row.pid !== null) signalAll(marked(row.node_id, row.pid), 'SIGKILL');
    tokens.revoke(row.token_id);
    store.brokers.end(row.token_id, 'lost', at);
    hooks.ended(row.node_id);
  }
  // No broker lives before this daemon starts one: a job still `running` ran in a broker that
  // is gone (stopped with the last daemon, whose close records no job ends).
  for (const nodeId of store.jobs.runningNodes()) hooks.ended(nodeId);
  for (const row of store.nodes.inStates(['running'])) hooks.lost(row.id);
}

/**
 * The pid still runs an agent host of this home: our entry or bundle, with a private directory
 * under this home's (`SVC_PRIVATE_TMP`), not a process that reused the pid since. Another home's
 * daemon runs the same entry: its host, and all below it, must not be taken for this one's.
 */
export function isOurHost(
  pid: number,
  state: Pick<SupervisorState, 'entry' | 'cache' | 'hostsTmp'>,
): boolean {
  if (!isAlive(pid)) return false;
  const scripts = [state.entry, join(state.cache, 'broker-')];
  const ownTmp = Buffer.from(`${PRIVATE_TMP_ENV}=${join(state.hostsTmp, 'h-')}`);
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`);
    return scripts.some((s) => cmdline.includes(s)) && entryStarts(environ, ownTmp);
  } catch {
    // No /proc: trust the pid, as a stale one is rare and its signal is refused unless it is ours.
    return true;
  }
}
