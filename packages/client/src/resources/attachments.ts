import { type AttachmentLink, type AttachmentLinkQuery, assertId } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** `{ upload_id, ttl_s? }`: `ttl_s` from 1 to 3600 (default 300). */
export type AttachmentLinkParams = AttachmentLinkQuery;

/** `client.attachments`: capability URLs serving an upload's bytes without a bearer. */
export class Attachments extends APIResource {
  /**
   * A URL on the daemon's TCP listener that serves the upload until `expires_at` (GET
   * /v1/attachments/link); 409 while that listener is off. A malformed `upload_id` is a
   * `TypeError` before any request.
   */
  link(params: AttachmentLinkParams, options?: RequestOptions): APIPromise<AttachmentLink> {
    assertId('upload', params?.upload_id, 'params.upload_id');
    return this._transport.request(
      'GET',
      pathOf('attachments.link'),
      { query: { ...params } },
      options,
    );
  }
}
