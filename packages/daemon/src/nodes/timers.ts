/**
 * Node timers (`nodes.wait` `{for: 'timer'}`) as one due-time source over the store: the soonest
 * `until` of a waiting node is read from its row, so a timer survives a restart and needs no
 * process-side state; a tick wakes every node whose time has come, each once (a woken node no
 * longer waits on it). The daemon's clock drives it (`soonest`, `onChange`, `tick`).
 */
import type { Logger } from '../lifecycle/logger.ts';
import { type MoveDeps, move } from './move.ts';

export interface NodeTimers {
  /** The soonest `until` of a node waiting on a timer (ISO), or `null`. */
  soonest(): string | null;
  /** Calls `listener` after every commit that set a timer wait; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Wakes every node whose timer is due; answers whether anything failed. */
  tick(first: boolean): boolean;
  /** What `move` calls after such a commit (`NodeDeps.timerSet`). */
  changed(): void;
}

export function nodeTimers(
  deps: Omit<MoveDeps, 'timerSet'> & { logger?: Pick<Logger, 'error'> | undefined },
): NodeTimers {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const moveDeps: MoveDeps = { ...deps, timerSet: changed };
  return {
    soonest: () => deps.store.nodes.soonestTimer(),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tick() {
      let failed = false;
      const at = new Date().toISOString();
      for (const due of deps.store.nodes.timersDue(at)) {
        try {
          deps.store.db.transaction((afterCommit) => {
            // Read again inside the transaction: a message may have woken it meanwhile.
            const row = deps.store.nodes.get(due.id);
            const waiting = row?.state === 'waiting' ? row.waiting_on : null;
            if (row === undefined || waiting?.for !== 'timer' || waiting.until > at) return;
            move(moveDeps, row, 'wake', {}, afterCommit);
          });
        } catch (error) {
          failed = true;
          deps.logger?.error({ err: error, node_id: due.id }, 'could not wake a node on its timer');
        }
      }
      return failed;
    },
    changed,
  };
}
