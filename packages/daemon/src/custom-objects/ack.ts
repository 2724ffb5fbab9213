import type { customObjectAckResultSchema } from '@svc/protocol';
import type { z } from 'zod';
import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { recordDelivery } from './delivery-event.ts';
import { managedObject } from './visibility.ts';

export type AckResult = z.output<typeof customObjectAckResultSchema>;

/**
 * Acknowledges deliveries of a queue. Ids of no delivery of this object are answered in
 * `not_found` (the rest are acknowledged all the same); acknowledging twice changes nothing.
 */
export function ackDeliveries(
  { store, events }: { store: Pick<Store, 'db' | 'customObjects'>; events: EventLog },
  id: string,
  principal: Principal,
  sight: Sight,
  deliveryIds: readonly string[],
): AckResult {
  const objects = store.customObjects;
  return store.db.transaction(() => {
    const row = managedObject(objects, principal, sight, id);
    if (row.receiver_kind !== 'queue') {
      throw new ApiError(
        'invalid_state',
        `custom object ${id} has a ${row.receiver_kind} receiver: its deliveries are acknowledged by the receiver's answer, not by ack`,
      );
    }
    let acked = 0;
    const notFound: string[] = [];
    const now = new Date().toISOString();
    for (const deliveryId of new Set(deliveryIds)) {
      const delivery = objects.delivery(deliveryId);
      if (delivery?.object_id !== row.id) {
        notFound.push(deliveryId);
        continue;
      }
      if (objects.markDelivered(deliveryId, now)) recordDelivery(events, delivery, 'delivered');
      acked++;
    }
    return { acked, not_found: notFound };
  });
}
