import type { Upload, UploadCreateBody } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** `{ filename, media_type?, content_base64 }`; at most 1 MiB once decoded. */
export type UploadCreateParams = UploadCreateBody;

/**
 * `client.uploads`: files an app hands the daemon for its runs. Reading or deleting one
 * (`GET`/`DELETE /v1/uploads/{id}`) and the raw-body form (`POST /v1/uploads/raw`) are reached
 * with `client.request`; `client.attachments.link` serves the bytes.
 */
export class Uploads extends APIResource {
  /** Stores a file (POST /v1/uploads); over 1 MiB decoded is refused (413). */
  create(params: UploadCreateParams, options?: RequestOptions): APIPromise<Upload> {
    return this._transport.request('POST', pathOf('uploads.create'), { body: params }, options);
  }
}
