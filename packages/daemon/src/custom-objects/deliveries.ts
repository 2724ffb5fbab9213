/**
 * The bookkeeping of url and argv attempts, made by `dispatcher.ts`: which are due, taking them
 * (attempts + 1, none due meanwhile), and recording how each ended. What is due is in the
 * database, so a restart resumes where the last daemon stopped.
 */
import type { EventLog } from '../events/log.ts';
import { toEventDto } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import { recordDelivery } from './delivery-event.ts';
import { type DeliveryPolicy, retryDelayMs } from './policy.ts';
import type { ObjectSignals } from './signals.ts';
import type { DeliveryRow, ObjectReceiver } from './store.ts';

/** One attempt to hand a delivery to a url or argv receiver, as the dispatcher makes it. */
export interface Attempt {
  delivery: DeliveryRow;
  objectId: string;
  receiver: Exclude<ObjectReceiver, { kind: 'queue' }>;
  signingSecret: string | null;
  /** The delivery JSON: the `object.event` row, as a queue reader gets it. */
  body: string;
}

export interface DeliveryDeps {
  store: Pick<Store, 'db' | 'customObjects'>;
  events: EventLog;
  signals: Pick<ObjectSignals, 'changed'>;
  policy: DeliveryPolicy;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Why an app's argv receiver gets nothing: its program would run beyond the app's scopes. */
export const APP_ARGV_REFUSED =
  "refused: an app's argv receiver would run its program unconfined, beyond the app's scopes; only the owner may register one";

/** Attempts a stopped daemon left in flight are due again: called once at start. */
export function resumeInFlight({ store, signals }: DeliveryDeps): number {
  return store.db.transaction((afterCommit) => {
    const n = store.customObjects.resumeInFlight(new Date().toISOString());
    if (n > 0) signals.changed(afterCommit);
    return n;
  });
}

/**
 * Takes up to `limit` due deliveries for one attempt each (attempts + 1, none due meanwhile).
 * They are returned at once, for the dispatcher to count, and handed to `whenTaken` once the
 * take is durable: an attempt made first and lost with its batch at a `kill -9` would be made
 * again after the restart and counted once.
 */
export function takeDue(
  deps: DeliveryDeps,
  nowMs: number,
  limit: number,
  whenTaken: (taken: Attempt[]) => void,
): Attempt[] {
  if (limit <= 0) return [];
  const { store } = deps;
  const objects = store.customObjects;
  return store.db.transaction((afterCommit) => {
    const taken: Attempt[] = [];
    for (const due of objects.due(iso(nowMs), limit)) {
      const delivery = objects.startAttempt(due.id, iso(nowMs));
      const object = objects.get(due.object_id);
      const event = objects.event(due.seq);
      if (delivery === undefined || object === undefined) continue;
      const receiver = object.receiver;
      if (receiver.kind === 'queue') continue;
      if (event === undefined) {
        // The log lost the event (it never should): nothing can be sent, ever.
        failForGood(deps, delivery, 'the object.event row is missing', nowMs);
        continue;
      }
      if (receiver.kind === 'argv' && object.app_id !== null) {
        // Registered by an app before only the owner could (`register.ts`): never run.
        failForGood(deps, delivery, APP_ARGV_REFUSED, nowMs);
        continue;
      }
      taken.push({
        delivery,
        objectId: object.id,
        receiver,
        signingSecret: object.signing_secret,
        body: JSON.stringify(toEventDto(event)),
      });
    }
    if (taken.length > 0) afterCommit(() => whenTaken(taken));
    return taken;
  });
}

/**
 * Records an attempt's outcome: delivered; or failed for good once `maxAttempts` are spent;
 * or due again after the backoff. Each records an `object.delivery` event.
 */
export function finishAttempt(deps: DeliveryDeps, deliveryId: string, error: string | null): void {
  const { store, events, signals, policy } = deps;
  const objects = store.customObjects;
  store.db.transaction((afterCommit) => {
    const delivery = objects.delivery(deliveryId);
    // Unregistered meanwhile (the row went with its object), or already ended.
    if (delivery === undefined || delivery.state !== 'pending') return;
    const nowMs = Date.now();
    if (error === null) {
      if (objects.markDelivered(deliveryId, iso(nowMs))) {
        recordDelivery(events, delivery, 'delivered');
      }
    } else if (delivery.attempts >= policy.maxAttempts) {
      failForGood(deps, delivery, error, nowMs);
    } else {
      const next = iso(nowMs + retryDelayMs(policy, delivery.attempts));
      if (objects.retryLater(deliveryId, next, error, iso(nowMs))) {
        recordDelivery(events, delivery, 'pending', { error, next_attempt_at: next });
      }
    }
    signals.changed(afterCommit);
  });
}

/** A delivery failed for good, with its `object.event`, unless it ended already. */
function failForGood(
  { store, events }: Pick<DeliveryDeps, 'store' | 'events'>,
  delivery: DeliveryRow,
  error: string,
  nowMs: number,
): void {
  if (store.customObjects.fail(delivery.id, error, iso(nowMs))) {
    recordDelivery(events, delivery, 'failed', { error });
  }
}
