/**
 * Publishing one declared event. A publish is one transaction: the `object.event` row in the
 * event log and its delivery row, so no event is ever recorded without its delivery or the
 * other way round.
 */
import {
  type customObjectPublishBodySchema,
  type customObjectPublishResultSchema,
  newId,
} from '@svc/protocol';
import type { z } from 'zod';
import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { EventSchemas } from './event-schemas.ts';
import type { ObjectSignals } from './signals.ts';
import type { CustomObjectRow } from './store.ts';
import { managedObject } from './visibility.ts';

export type PublishBody = z.output<typeof customObjectPublishBodySchema>;
export type PublishResult = z.output<typeof customObjectPublishResultSchema>;

export interface PublishDeps {
  store: Pick<Store, 'db' | 'customObjects'>;
  events: EventLog;
  schemas: EventSchemas;
  signals: Pick<ObjectSignals, 'changed'>;
}

/**
 * Publishes one declared event. `principal` is the object's publish token (confined to this
 * object by the auth step), the owner, or a token of the owning app.
 */
export async function publishEvent(
  deps: PublishDeps,
  id: string,
  principal: Principal,
  sight: Sight,
  body: PublishBody,
): Promise<PublishResult> {
  await deps.schemas.screenStored(publishable(deps, id, principal, sight), body.event);
  // Read again after the wait: the object may have gone meanwhile.
  return publishNow(deps, publishable(deps, id, principal, sight), body);
}

function publishable(
  { store }: PublishDeps,
  id: string,
  principal: Principal,
  sight: Sight,
): CustomObjectRow {
  const objects = store.customObjects;
  const row =
    principal.kind === 'publish' ? objects.get(id) : managedObject(objects, principal, sight, id);
  if (row === undefined) {
    throw new ApiError('not_found', `no custom object ${id}`, { field: 'id' });
  }
  return row;
}

function publishNow(
  { store, events, schemas, signals }: PublishDeps,
  row: CustomObjectRow,
  body: PublishBody,
): PublishResult {
  if (!Object.hasOwn(row.events, body.event)) {
    const names = Object.keys(row.events);
    const shown = names.length > 10 ? `${names.slice(0, 10).join(', ')}, …` : names.join(', ');
    throw new ApiError(
      'validation_failed',
      `custom object ${row.id} declares no event '${body.event}' (declared: ${shown})`,
      { field: 'event', received: body.event },
    );
  }
  const data = body.data === undefined ? null : body.data;
  const failure = schemas.checkFor(row, body.event)?.(data) ?? null;
  if (failure !== null) {
    throw new ApiError(
      'validation_failed',
      `data does not match the schema of event '${body.event}' at ${failure.pointer || '/'}: ${failure.reason}`,
      { field: failure.field === '' ? 'data' : `data.${failure.field}` },
    );
  }
  return store.db.transaction((afterCommit) => {
    const deliveryId = newId('delivery');
    const event = events.record('object.event', row.id, {
      object_id: row.id,
      event: body.event,
      data,
      delivery_id: deliveryId,
    });
    const now = new Date().toISOString();
    store.customObjects.insertDelivery({
      id: deliveryId,
      object_id: row.id,
      seq: event.seq,
      state: 'pending',
      attempts: 0,
      // A queue is read, not pushed: no attempt is ever due.
      next_attempt_at: row.receiver_kind === 'queue' ? null : now,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
    if (row.receiver_kind !== 'queue') signals.changed(afterCommit);
    return { delivery_id: deliveryId, seq: event.seq };
  });
}
