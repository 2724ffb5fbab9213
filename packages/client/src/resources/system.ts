import type { healthzResponseSchema, statusResponseSchema } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Output } from '../internal/types.ts';

export type SystemStatus = Output<typeof statusResponseSchema>;
export type Liveness = Output<typeof healthzResponseSchema>;

export class System extends APIResource {
  /** The daemon's status (GET /v1/status). */
  status(options?: RequestOptions): APIPromise<SystemStatus> {
    return this._transport.request('GET', pathOf('status.get'), {}, options);
  }

  /** Liveness (GET /healthz); needs no token. */
  health(options?: RequestOptions): APIPromise<Liveness> {
    return this._transport.request('GET', '/healthz', {}, options);
  }
}
