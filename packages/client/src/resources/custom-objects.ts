import type {
  CustomObjectAckResult,
  CustomObjectDeleteResult,
  CustomObjectPublishBody,
  CustomObjectPublishResult,
  CustomObjectRegisterBody,
  CustomObjectRegistered,
  ObjectDelivery,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions, StreamOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Stream } from '../core/stream.ts';

export type CustomObjectRegisterParams = CustomObjectRegisterBody;
export type CustomObjectPublishParams = CustomObjectPublishBody;

const object = (value: unknown) => id('object', value, 'ref');

/**
 * `client.customObjects`: objects with a declared event catalog and a receiver (a queue, a URL,
 * or a program). A client made with only an object's publish token can `publish` to it.
 */
export class CustomObjects extends APIResource {
  /** Registers an object; the answer carries its publish token, shown this once. */
  register(
    params: CustomObjectRegisterParams,
    options?: RequestOptions,
  ): APIPromise<CustomObjectRegistered> {
    return this._transport.request(
      'POST',
      pathOf('customObjects.register'),
      { body: params },
      options,
    );
  }

  /** Publishes one declared event; `data` must match the event's schema, if it has one. */
  publish(
    ref: string,
    params: CustomObjectPublishParams,
    options?: RequestOptions,
  ): APIPromise<CustomObjectPublishResult> {
    const url = pathOf('customObjects.publish', { id: object(ref) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Deletes the object: its pending deliveries stop, its receive streams end. */
  unregister(ref: string, options?: RequestOptions): APIPromise<CustomObjectDeleteResult> {
    return this._transport.request(
      'DELETE',
      pathOf('customObjects.unregister', { id: object(ref) }),
      {},
      options,
    );
  }

  /**
   * Acknowledges a queue's deliveries by id (`dlv_…`); acknowledging twice changes nothing, and
   * ids of no delivery of this object come back in `not_found`.
   */
  ack(
    ref: string,
    deliveryIds: readonly string[],
    options?: RequestOptions,
  ): APIPromise<CustomObjectAckResult> {
    const url = pathOf('customObjects.ack', { id: object(ref) });
    if (!Array.isArray(deliveryIds))
      throw new TypeError('deliveryIds must be an array of dlv_ ids');
    for (const [i, deliveryId] of deliveryIds.entries())
      id('delivery', deliveryId, `deliveryIds[${i}]`);
    return this._transport.request('POST', url, { body: { delivery_ids: deliveryIds } }, options);
  }

  /**
   * A queue's deliveries, as an async iterator: on each connect, every unacknowledged delivery
   * first (so one seen but not acknowledged before a disconnect comes again), then live ones.
   * Reconnects by itself; `after` also asks for acknowledged deliveries after that seq.
   */
  receive(ref: string, options: StreamOptions = {}): Stream<ObjectDelivery> {
    const url = pathOf('customObjects.receive', { id: object(ref) });
    // A reconnect sends no cursor of its own: the daemon reads one as `after`, a request for
    // acknowledged deliveries too, and the replay's seqs are older than the live ones'. Given
    // `after`, it goes on from the highest seq seen, so none is sent twice.
    return this._transport.stream(
      url,
      undefined,
      options,
      options.after === undefined ? 'start' : 'max',
    );
  }
}
