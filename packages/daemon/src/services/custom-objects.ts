/**
 * Custom objects (docs/api-v1.md "Custom objects"): registration, publishing, queue reading and
 * acknowledgement, and the bookkeeping of url and argv attempts (made by `object-dispatcher.ts`).
 * A publish is one transaction: the `object.event` row in the event log and its delivery row, so
 * no event is ever recorded without its delivery or the other way round.
 */
import { stat } from 'node:fs/promises';
import {
  type CustomObjectAckResult as AckResult,
  newId,
  type CustomObjectPublishBody as PublishBody,
  type CustomObjectPublishResult as PublishResult,
  type CustomObjectRegisterBody as RegisterBody,
  type CustomObjectRegistered as RegisterResult,
} from '@svc/protocol';
import { appsReadable, requireScope } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import {
  type CustomObject,
  type CustomObjectRow,
  type DeliveryRow,
  type ObjectReceiver,
  toCustomObject,
} from '../store/custom-objects.ts';
import type { Store } from '../store/index.ts';
import { type EventDto, type EventLog, toEventDto } from './events.ts';
import { eventSchemas } from './object-schemas.ts';
import { mintPublishToken, mintSigningSecret } from './object-secrets.ts';

export type { AckResult, PublishBody, PublishResult, RegisterBody, RegisterResult };

/** How url and argv receivers are retried. */
export interface DeliveryPolicy {
  /** Attempts in all, the first included; then the delivery is `failed`. Default 8. */
  maxAttempts: number;
  /** The wait after the first failed attempt; each next one is 4 times longer. Default 5 s. */
  retryBaseMs: number;
  /** The longest wait between attempts. Default 1 h. */
  retryMaxMs: number;
  /** How long one POST or one program run may take before it counts as failed. Default 30 s. */
  attemptTimeoutMs: number;
}

export const DEFAULT_DELIVERY_POLICY: Readonly<DeliveryPolicy> = Object.freeze({
  maxAttempts: 8,
  retryBaseMs: 5_000,
  retryMaxMs: 60 * 60_000,
  attemptTimeoutMs: 30_000,
});

const BACKOFF_FACTOR = 4;

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
function retryDelayMs(policy: DeliveryPolicy, attempts: number): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(policy.retryBaseMs * BACKOFF_FACTOR ** exponent, policy.retryMaxMs);
}

/** One attempt to hand a delivery to a url or argv receiver, as the dispatcher makes it. */
export interface Attempt {
  delivery: DeliveryRow;
  objectId: string;
  receiver: Exclude<ObjectReceiver, { kind: 'queue' }>;
  signingSecret: string | null;
  /** The delivery JSON: the `object.event` row, as a queue reader gets it. */
  body: string;
}

type EventDecl = { description: string | null; schema: Record<string, unknown> | null };

export interface CustomObjectServiceDeps {
  store: Store;
  events: EventLog;
  policy?: Partial<DeliveryPolicy> | undefined;
}

export function customObjectService({ store, events, policy: given }: CustomObjectServiceDeps) {
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...definedOnly(given ?? {}) };
  for (const [key, value] of Object.entries(policy)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new TypeError(`objects.${key} must be a positive integer; received ${value}`);
    }
  }
  const objects = store.customObjects;
  const changeListeners = new Set<() => void>();
  const goneListeners = new Set<(objectId: string) => void>();
  const schemas = eventSchemas();
  const iso = (ms: number) => new Date(ms).toISOString();

  /** Due times changed: the dispatcher re-arms once the commit lands. */
  function changed(afterCommit: (cb: () => void) => void): void {
    afterCommit(() => {
      for (const listener of changeListeners) listener();
    });
  }

  /**
   * The apps whose objects `principal` may read: `undefined` for the owner (all); else its own
   * app and each app it holds `svc:objects:read:app:<id>` for. The owner's own objects
   * (`app_id` null) are the owner's alone.
   */
  function readableApps(principal: Principal): string[] | undefined {
    if (principal.kind === 'owner') return undefined;
    if (principal.kind === 'publish') return [];
    const apps = new Set(appsReadable(principal.scopes ?? [], 'objects'));
    if (principal.appId !== null) apps.add(principal.appId);
    return [...apps];
  }

  function visibleRow(id: string, principal: Principal): CustomObjectRow {
    const row = objects.get(id);
    const apps = readableApps(principal);
    const sees =
      row !== undefined &&
      (apps === undefined || (row.app_id !== null && apps.includes(row.app_id)));
    if (!sees) throw new ApiError('not_found', `no custom object ${id}`, { field: 'id' });
    return row!;
  }

  function manages(principal: Principal, row: CustomObjectRow): boolean {
    return (
      principal.kind === 'owner' || (principal.appId !== null && principal.appId === row.app_id)
    );
  }

  /** The owner, or a token of the owning app; a reader by scope gets 403, anyone else 404. */
  function managedRow(id: string, principal: Principal): CustomObjectRow {
    const row = visibleRow(id, principal);
    if (!manages(principal, row)) {
      throw new ApiError(
        'forbidden',
        `custom object ${id} belongs to app '${row.app_id}'; svc:objects:read:app:${row.app_id} lets you read it, not change it`,
      );
    }
    return row;
  }

  /**
   * The object as `principal` may read it. A webhook URL often carries a secret in its path or
   * query, so a reader by scope (`svc:objects:read:app:<id>`) sees only its origin.
   */
  function dto(row: CustomObjectRow, principal: Principal): CustomObject {
    const object = toCustomObject(row, objects.pendingCount(row.id));
    if (object.receiver.kind !== 'url' || manages(principal, row)) return object;
    return {
      ...object,
      receiver: { ...object.receiver, url: new URL(object.receiver.url).origin },
    };
  }

  function publishable(id: string, principal: Principal): CustomObjectRow {
    const row = principal.kind === 'publish' ? objects.get(id) : managedRow(id, principal);
    if (row === undefined) {
      throw new ApiError('not_found', `no custom object ${id}`, { field: 'id' });
    }
    return row;
  }

  function publishNow(row: CustomObjectRow, body: PublishBody): PublishResult {
    const catalog = JSON.parse(row.events) as Record<string, EventDecl>;
    if (!Object.hasOwn(catalog, body.event)) {
      const names = Object.keys(catalog);
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
      objects.insertDelivery({
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
      if (row.receiver_kind !== 'queue') changed(afterCommit);
      return { delivery_id: deliveryId, seq: event.seq };
    });
  }

  async function checkReceiver(receiver: ObjectReceiver, principal: Principal): Promise<void> {
    if (receiver.kind === 'queue') return;
    // An argv receiver runs a program on the host, like bash; a url receiver makes the host send
    // requests to any address it reaches, loopback and LAN services included (a request forgery
    // for a token that could not otherwise reach them). Both act on the host: `svc:act`.
    requireScope(
      principal,
      'svc:act',
      receiver.kind === 'argv'
        ? 'an argv receiver runs a program on the host'
        : 'a url receiver makes the host send requests',
    );
    if (receiver.kind === 'argv' && receiver.cwd !== undefined) {
      const info = await stat(receiver.cwd).catch(() => null);
      if (info === null || !info.isDirectory()) {
        throw new ApiError(
          'validation_failed',
          `receiver.cwd ${JSON.stringify(receiver.cwd)} is not an existing directory`,
          { field: 'receiver.cwd' },
        );
      }
    }
  }

  function recordDelivery(
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

  return {
    policy,

    /** Calls `listener` after every commit that changed when a url or argv attempt is due. */
    onChange(listener: () => void): () => void {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },

    /** Calls `listener` with the id of each object unregistered, once that commits. */
    onUnregistered(listener: (objectId: string) => void): () => void {
      goneListeners.add(listener);
      return () => goneListeners.delete(listener);
    },

    async register(body: RegisterBody, principal: Principal): Promise<RegisterResult> {
      // Who may register this receiver first: the schemas' screen costs the checker time.
      await checkReceiver(body.receiver, principal);
      await schemas.checkAtRegister(body.events);
      const publish = mintPublishToken();
      const signingSecret = body.receiver.kind === 'url' ? mintSigningSecret() : null;
      const catalog = Object.fromEntries(
        Object.entries(body.events).map(([name, decl]) => [
          name,
          { description: decl.description ?? null, schema: decl.schema ?? null },
        ]),
      );
      const row: CustomObjectRow = {
        id: newId('object'),
        name: body.name,
        description: body.description ?? null,
        events: JSON.stringify(catalog),
        receiver: JSON.stringify(body.receiver),
        receiver_kind: body.receiver.kind,
        publish_hash: publish.hash,
        signing_secret: signingSecret,
        app_id: principal.appId,
        created_at: new Date().toISOString(),
      };
      const object = store.db.transaction(() => {
        objects.insert(row);
        const object = toCustomObject(row, 0);
        events.record('object.registered', row.id, { object });
        return object;
      });
      return {
        ...object,
        publish_token: publish.secret,
        ...(signingSecret !== null && { signing_secret: signingSecret }),
      };
    },

    list(principal: Principal, q: { before?: string | undefined; limit: number }): CustomObject[] {
      const appIds = readableApps(principal);
      if (appIds !== undefined && appIds.length === 0) return [];
      return objects.list({ appIds, ...q }).map((row) => dto(row, principal));
    },

    get(id: string, principal: Principal): CustomObject {
      return dto(visibleRow(id, principal), principal);
    },

    unregister(id: string, principal: Principal): { id: string; deleted: true } {
      return store.db.transaction((afterCommit) => {
        const row = managedRow(id, principal);
        const dropped = objects.pendingCount(row.id);
        objects.delete(row.id);
        events.record('object.unregistered', row.id, {
          object_id: row.id,
          dropped_pending: dropped,
        });
        afterCommit(() => {
          schemas.forget(row.id);
          for (const listener of goneListeners) listener(row.id);
        });
        changed(afterCommit);
        return { id: row.id, deleted: true as const };
      });
    },

    /**
     * Publishes one declared event. `principal` is the object's publish token (confined to this
     * object by the auth step), the owner, or a token of the owning app.
     */
    async publish(id: string, principal: Principal, body: PublishBody): Promise<PublishResult> {
      await schemas.screenStored(publishable(id, principal), body.event);
      // Read again after the wait: the object may have gone meanwhile.
      return publishNow(publishable(id, principal), body);
    },

    /**
     * Acknowledges deliveries of a queue. Ids of no delivery of this object are answered in
     * `not_found` (the rest are acknowledged all the same); acknowledging twice changes nothing.
     */
    ack(id: string, principal: Principal, deliveryIds: readonly string[]): AckResult {
      return store.db.transaction(() => {
        const row = managedRow(id, principal);
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
          if (objects.markDelivered(deliveryId, now)) recordDelivery(delivery, 'delivered');
          acked++;
        }
        return { acked, not_found: notFound };
      });
    },

    /**
     * What one receive stream reads: every pending delivery of a queue, and those after `after`
     * (or, without it, after what was committed at the connect) whatever their state.
     */
    queueReader(id: string, principal: Principal, after: number | undefined) {
      const row = visibleRow(id, principal);
      if (row.receiver_kind !== 'queue') {
        throw new ApiError(
          'invalid_state',
          `custom object ${id} has a ${row.receiver_kind} receiver: the daemon delivers to it, there is no queue to read`,
        );
      }
      const cutoff = after ?? events.lastSeq();
      return {
        read: (from: number, limit: number): EventDto[] =>
          objects.streamPage(row.id, from, cutoff, limit).map(toEventDto),
        /** False once the object is unregistered: the stream ends. */
        alive: () => objects.get(row.id) !== undefined,
      };
    },

    /** The soonest time an attempt is due, or `null`. */
    soonest(): string | null {
      return objects.soonest();
    },

    /** Attempts a stopped daemon left in flight are due again: called once at start. */
    resumeInFlight(): number {
      return store.db.transaction((afterCommit) => {
        const n = objects.resumeInFlight(new Date().toISOString());
        if (n > 0) changed(afterCommit);
        return n;
      });
    },

    /** Takes up to `limit` due deliveries for one attempt each (attempts + 1, none due meanwhile). */
    takeDue(nowMs: number, limit: number): Attempt[] {
      if (limit <= 0) return [];
      return store.db.transaction(() => {
        const taken: Attempt[] = [];
        for (const due of objects.due(iso(nowMs), limit)) {
          const delivery = objects.startAttempt(due.id, iso(nowMs));
          const object = objects.get(due.object_id);
          const event = objects.event(due.seq);
          if (delivery === undefined || object === undefined) continue;
          const receiver = JSON.parse(object.receiver) as ObjectReceiver;
          if (receiver.kind === 'queue') continue;
          if (event === undefined) {
            // The log lost the event (it never should): nothing can be sent, ever.
            objects.fail(due.id, 'the object.event row is missing', iso(nowMs));
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
        return taken;
      });
    },

    /**
     * Records an attempt's outcome: delivered; or failed for good once `maxAttempts` are spent;
     * or due again after the backoff. Each records an `object.delivery` event.
     */
    finishAttempt(deliveryId: string, error: string | null): void {
      store.db.transaction((afterCommit) => {
        const delivery = objects.delivery(deliveryId);
        // Unregistered meanwhile (the row went with its object), or already ended.
        if (delivery === undefined || delivery.state !== 'pending') return;
        const nowMs = Date.now();
        if (error === null) {
          if (objects.markDelivered(deliveryId, iso(nowMs))) recordDelivery(delivery, 'delivered');
        } else if (delivery.attempts >= policy.maxAttempts) {
          if (objects.fail(deliveryId, error, iso(nowMs))) {
            recordDelivery(delivery, 'failed', { error });
          }
        } else {
          const next = iso(nowMs + retryDelayMs(policy, delivery.attempts));
          if (objects.retryLater(deliveryId, next, error, iso(nowMs))) {
            recordDelivery(delivery, 'pending', { error, next_attempt_at: next });
          }
        }
        changed(afterCommit);
      });
    },
  };
}

export type CustomObjectService = ReturnType<typeof customObjectService>;

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
