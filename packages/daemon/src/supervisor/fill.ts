/** Queued nodes into free slots, oldest first (see supervisor.ts). */
import { launch } from './launch.ts';
import { topUpSpares } from './spares.ts';
import type { SupervisorState } from './supervisor-state.ts';

/** Fills the slots on the next turn of the event loop, once however often it is asked. */
export function schedule(state: SupervisorState): void {
  if (state.scheduled || state.closed) return;
  state.scheduled = true;
  setImmediate(() => {
    state.scheduled = false;
    fill(state);
  });
}

/** Starts queued nodes, oldest first, while slots are free; then tops up the spares. */
function fill(state: SupervisorState): void {
  if (state.closed) return;
  if (busy(state) < state.concurrency) {
    // Of the oldest queued, at most `busy` are skipped below (theirs is active or preparing):
    // the first `concurrency` hold every one a free slot takes, and the rest are not read.
    for (const row of state.deps.store.nodes.oldestInState('queued', state.concurrency)) {
      if (busy(state) >= state.concurrency) break;
      // A node woken while its previous broker still exits waits for that exit.
      if (!state.active.has(row.id) && !state.preparing.has(row.id)) launch(state, row);
    }
  }
  if (state.warm) topUpSpares(state);
}

/** Slots taken: brokers, and nodes whose git worktree is being made for theirs. */
function busy(state: SupervisorState): number {
  return state.active.size + state.preparing.size;
}
