/**
 * Custom objects (docs/api-v1.md "Custom objects"): the operations, one file each, assembled
 * into the object the routes and the dispatcher call. The signals and the compiled schemas are
 * the state they share.
 */
import type { Sight } from '../access/visibility.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { ackDeliveries } from './ack.ts';
import { type Attempt, finishAttempt, resumeInFlight, takeDue } from './deliveries.ts';
import { eventSchemas } from './event-schemas.ts';
import { listObjects } from './list.ts';
import { type DeliveryPolicy, deliveryPolicy } from './policy.ts';
import { type PublishBody, publishEvent } from './publish.ts';
import { queueReader } from './queue-reader.ts';
import { type RegisterBody, registerObject } from './register.ts';
import { retrieveObject } from './retrieve.ts';
import { objectSignals } from './signals.ts';
import { unregisterObject } from './unregister.ts';

export type { Attempt, DeliveryPolicy };

export interface CustomObjectServiceDeps {
  store: Store;
  events: EventLog;
  policy?: Partial<DeliveryPolicy> | undefined;
}

export function customObjectService({ store, events, policy: given }: CustomObjectServiceDeps) {
  const policy = deliveryPolicy(given);
  const signals = objectSignals();
  const schemas = eventSchemas();
  const objects = store.customObjects;
  const deps = { store, events, schemas, signals, policy };
  return {
    policy,
    onChange: signals.onChange,
    onUnregistered: signals.onUnregistered,
    register: (body: RegisterBody, principal: Principal) => registerObject(deps, body, principal),
    list: (principal: Principal, sight: Sight, q: { before?: string | undefined; limit: number }) =>
      listObjects(objects, principal, sight, q),
    get: (id: string, principal: Principal, sight: Sight) =>
      retrieveObject(objects, principal, sight, id),
    unregister: (id: string, principal: Principal, sight: Sight) =>
      unregisterObject(deps, id, principal, sight),
    publish: (id: string, principal: Principal, sight: Sight, body: PublishBody) =>
      publishEvent(deps, id, principal, sight, body),
    ack: (id: string, principal: Principal, sight: Sight, deliveryIds: readonly string[]) =>
      ackDeliveries(deps, id, principal, sight, deliveryIds),
    queueReader: (id: string, sight: Sight, after: number | undefined) =>
      queueReader({ objects, events }, id, sight, after),
    /** The soonest time an attempt is due, or `null`. */
    soonest: (): string | null => objects.soonest(),
    resumeInFlight: () => resumeInFlight(deps),
    takeDue: (nowMs: number, limit: number, whenTaken: (taken: Attempt[]) => void): Attempt[] =>
      takeDue(deps, nowMs, limit, whenTaken),
    finishAttempt: (deliveryId: string, error: string | null) =>
      finishAttempt(deps, deliveryId, error),
  };
}

export type CustomObjectService = ReturnType<typeof customObjectService>;
