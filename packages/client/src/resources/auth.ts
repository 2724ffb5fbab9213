import type { ModelAuthReadiness, SystemStatus } from '@svc/protocol';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

export interface AuthStatus {
  status: SystemStatus;
  /** `null` while the daemon does not report `ready`. */
  readiness: ModelAuthReadiness | null;
}

export class Auth extends APIResource {
  /**
   * The daemon's status, then model-auth readiness once the daemon says it is ready
   * (GET /v1/status, then GET /v1/model-auth/readiness). A daemon still starting answers 503,
   * which the retry policy waits out.
   */
  async status(options?: RequestOptions): Promise<AuthStatus> {
    const status = await this._transport.request<SystemStatus>(
      'GET',
      pathOf('status.get'),
      {},
      options,
    );
    const readiness =
      status.status === 'ready'
        ? await this._transport.request<ModelAuthReadiness>(
            'GET',
            pathOf('readiness.get'),
            {},
            options,
          )
        : null;
    return { status, readiness };
  }
}
