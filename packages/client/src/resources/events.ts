import type { SvcEvent } from '@svc/protocol';
import { pathOf } from '../core/path.ts';
import type { StreamOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Stream } from '../core/stream.ts';

export interface EventStreamParams {
  /** Start after this `seq` (the same as `options.after`). */
  after?: number | string;
  /** Only these kinds, e.g. `['token.created', 'token.revoked']`. */
  kinds?: string | readonly string[];
  /**
   * `false`: only the backlog (the events committed before the call); the stream ends after it.
   * Default `true`: backlog, then live events until the loop stops.
   */
  follow?: boolean;
}

export class Events extends APIResource {
  /**
   * The daemon's event log, backlog then live (GET /v1/events, SSE). Resumes after a disconnect
   * from the last `seq` seen; a `follow: false` stream ends after the backlog.
   */
  stream(params: EventStreamParams = {}, options: StreamOptions = {}): Stream<SvcEvent> {
    const after = options.after ?? params.after;
    return this._transport.stream(
      pathOf('events.stream'),
      { kinds: params.kinds, follow: params.follow },
      after === undefined ? options : { ...options, after },
    );
  }
}
