import { close } from './close.ts';
import { type HumanDeps, isOpen, iso, OWNER } from './deps.ts';

/**
 * Every open request whose time is up moves to `expired`, each in its own transaction. Every
 * call of the human routes runs it first, and the clock when the soonest expiry comes.
 */
export function expireDue(deps: HumanDeps, nowMs = Date.now()): void {
  const { store } = deps;
  for (const id of store.human.expiredBy(iso(nowMs))) {
    store.db.transaction((afterCommit) => {
      const row = store.human.request(id);
      if (row === undefined || !isOpen(row.state)) return;
      close(deps, row, 'expired', 'expired', { from: OWNER });
      deps.changed(afterCommit);
    });
  }
}
