/**
 * Warm spares (see supervisor.ts): broker processes started ahead of need, loaded, waiting for
 * a launch; and the bundle later brokers load instead of the `.ts` entry.
 */
import { brokerBundle } from './broker-bundle.ts';
import { type BrokerProcess, spawnBroker } from './broker-process.ts';
import type { SupervisorState } from './supervisor-state.ts';

/** The first launch: spares are kept from now on, and the entry's bundle is built. */
export function warmUp(state: SupervisorState): void {
  if (state.warm) return;
  state.warm = true;
  if (state.entryGiven) return;
  const { logger } = state.deps;
  brokerBundle(state.entry, state.cache).then(
    (file) => {
      state.script = file;
      logger.info({ bundle: file }, 'brokers run the bundled entry');
    },
    (error: unknown) => {
      logger.warn({ err: error }, 'brokers run the .ts entry: the bundle could not be built');
    },
  );
}

/** One spare per free slot, at least one (for the next slot to free up); one in a lull. */
export function topUpSpares(state: SupervisorState): void {
  const { spares } = state;
  const wanted = state.lull ? 1 : Math.max(1, state.concurrency - state.active.size);
  for (let i = spares.length - 1; i >= 0; i--) if (!spares[i]!.alive) spares.splice(i, 1);
  while (spares.length < wanted) {
    let spare: BrokerProcess;
    try {
      spare = spawnBroker({ entry: state.script, cwd: state.worktrees, env: state.env });
    } catch (error) {
      // The launch that needs one starts it cold (and reports what fails then).
      state.deps.logger.warn({ err: error }, 'could not start a spare broker');
      return;
    }
    spares.push(spare);
  }
}

/** Launches restart the lull's clock; once it runs out, the spares but one are stopped. */
export function launched(state: SupervisorState): void {
  state.lull = false;
  clearTimeout(state.lullTimer);
  state.lullTimer = setTimeout(() => {
    state.lull = true;
    for (const spare of state.spares.splice(1)) void spare.stop(0);
  }, state.spareIdleMs);
  // A quiet daemon exits as if no timer were set.
  state.lullTimer.unref();
}

/** A spare that is still alive, else a broker started now. */
export function takeBroker(state: SupervisorState): BrokerProcess {
  const { spares } = state;
  for (let spare = spares.shift(); spare !== undefined; spare = spares.shift()) {
    if (spare.alive) return spare;
  }
  return spawnBroker({ entry: state.script, cwd: state.worktrees, env: state.env });
}
