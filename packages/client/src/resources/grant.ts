import type { GrantInfo } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

export class Grant extends APIResource {
  /** What the calling token may do (GET /v1/grant). */
  get(options?: RequestOptions): APIPromise<GrantInfo> {
    return this._transport.request('GET', pathOf('grant.get'), {}, options);
  }
}
