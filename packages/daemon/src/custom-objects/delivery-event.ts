import type { EventLog } from '../events/log.ts';
import type { DeliveryRow } from './store.ts';

/** The `object.delivery` event of a delivery that changed state. */
export function recordDelivery(
  events: EventLog,
  row: DeliveryRow,
  state: DeliveryRow['state'],
  extra: { error?: string; next_attempt_at?: string } = {},
): void {
  events.record('object.delivery', row.object_id, {
    object_id: row.object_id,
    delivery_id: row.id,
    state,
    attempts: row.attempts,
    ...extra,
  });
}
