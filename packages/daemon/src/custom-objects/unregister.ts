import type { Sight } from '../access/visibility.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { EventSchemas } from './event-schemas.ts';
import type { ObjectSignals } from './signals.ts';
import { managedObject } from './visibility.ts';

/**
 * Deletes the object and (cascade) its deliveries; once that commits, its compiled checks go,
 * its attempts in flight stop and its open receive streams end.
 */
export function unregisterObject(
  deps: {
    store: Pick<Store, 'db' | 'customObjects'>;
    events: EventLog;
    schemas: Pick<EventSchemas, 'forget'>;
    signals: Pick<ObjectSignals, 'changed' | 'gone'>;
  },
  id: string,
  principal: Principal,
  sight: Sight,
): { id: string; deleted: true } {
  const { store, events, schemas, signals } = deps;
  return store.db.transaction((afterCommit) => {
    const row = managedObject(store.customObjects, principal, sight, id);
    const dropped = store.customObjects.pendingCount(row.id);
    store.customObjects.delete(row.id);
    events.record('object.unregistered', row.id, {
      object_id: row.id,
      dropped_pending: dropped,
    });
    afterCommit(() => {
      schemas.forget(row.id);
      signals.gone(row.id);
    });
    signals.changed(afterCommit);
    return { id: row.id, deleted: true as const };
  });
}
