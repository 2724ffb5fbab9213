import {
  assertName,
  PROVIDER_CALL_TIMEOUT_MS,
  type ProviderCallBody,
  type ProviderCallResult,
  type ProviderToolList,
  type ProviderToolsQuery,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import { ANSWER_GRACE_MS } from '../internal/options.ts';

/** `{ provider? }`: one provider's commands only. */
export type ProviderToolsParams = ProviderToolsQuery;
/** `{ provider, group, command, input, profile? }` */
export type ProviderCallParams = ProviderCallBody;

/** `client.providers`: the installed plugins' commands, listed and called through the daemon. */
export class Providers extends APIResource {
  /** The commands whose `<provider>:<group>` the token's scopes cover (GET /v1/providers/tools). */
  tools(params: ProviderToolsParams = {}, options?: RequestOptions): APIPromise<ProviderToolList> {
    if (params?.provider !== undefined) assertName('provider', params.provider, 'params.provider');
    return this._transport.request(
      'GET',
      pathOf('providers.tools'),
      { query: { ...params } },
      options,
    );
  }

  /**
   * Calls one command (POST /v1/provider/call). A plugin's own refusal (4xx) is thrown with its
   * status and code; a plugin that failed is a 502 `provider_error`.
   */
  call(params: ProviderCallParams, options?: RequestOptions): APIPromise<ProviderCallResult> {
    assertName('provider', params?.provider, 'params.provider');
    if (params.profile !== undefined) assertName('profile', params.profile, 'params.profile');
    // Past the daemon's own bound, so the caller hears its answer (a 502 included) rather than
    // timing out first; a retry then replays that answer, the daemon keeping it under the key.
    const timeout = PROVIDER_CALL_TIMEOUT_MS + ANSWER_GRACE_MS;
    return this._transport.request(
      'POST',
      pathOf('providers.call'),
      { body: params },
      { timeout, ...options },
    );
  }
}
