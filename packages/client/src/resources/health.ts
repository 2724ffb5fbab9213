import type { HealthStatus } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

export class Health extends APIResource {
  /** The app listener's health check (GET /v1/health); needs no token. */
  get(options?: RequestOptions): APIPromise<HealthStatus> {
    return this._transport.request('GET', pathOf('health.get'), {}, options);
  }
}
