import type { Liveness, SystemStatus } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

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
