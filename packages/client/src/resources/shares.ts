import type { Share, ShareCreateBody, ShareDeleteResult, ShareListQuery } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** `{ app_id, path, mode: 'read' | 'rw', expires_in_s? }`. */
export type ShareCreateParams = ShareCreateBody;
export type ShareListParams = ShareListQuery;
export type ShareList = ListPage<Share>;

const share = (value: unknown) => id('share', value, 'shareId');

/** `client.shares`: host paths shared with an app, reached through its files routes. */
export class Shares extends APIResource {
  /** Shares a path with an app (POST /v1/shares; `svc:files:share`, within your files scopes). */
  create(params: ShareCreateParams, options?: RequestOptions): APIPromise<Share> {
    return this._transport.request('POST', pathOf('shares.create'), { body: params }, options);
  }

  /** Live shares, newest first; an app sees those made to it or by it. */
  list(params: ShareListParams = {}, options?: RequestOptions): PagePromise<ShareList> {
    return this._transport.list(pathOf('shares.list'), { ...params }, options);
  }

  /** Ends a share (DELETE /v1/shares/{id}): the owner, or the app that made it. */
  delete(shareId: string, options?: RequestOptions): APIPromise<ShareDeleteResult> {
    return this._transport.request(
      'DELETE',
      pathOf('shares.delete', { id: share(shareId) }),
      {},
      options,
    );
  }
}
