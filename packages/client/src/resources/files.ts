import type {
  filesListQuerySchema,
  filesListResultSchema,
  filesReadQuerySchema,
  filesReadResultSchema,
  filesWriteBodySchema,
  filesWriteResultSchema,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Output } from '../internal/types.ts';

/** `{ path, offset?, max_bytes? }`; `path` is absolute on the daemon's host (it checks). */
export type FileReadParams = Output<typeof filesReadQuerySchema>;
/** `{ path, size, offset, content, encoding: 'utf8' | 'base64', truncated }`. */
export type FileSlice = Output<typeof filesReadResultSchema>;
/** `{ path, content, encoding?, create_parents? }`; at most 1 MiB once decoded. */
export type FileWriteParams = Output<typeof filesWriteBodySchema>;
export type FileWriteResult = Output<typeof filesWriteResultSchema>;
/** `{ path, limit? }`. */
export type FileListParams = Output<typeof filesListQuerySchema>;
/** `{ path, entries: [{ name, type, size, modified_at }], truncated }`. */
export type FileList = Output<typeof filesListResultSchema>;

/**
 * Host files by absolute path. Paths get no local identifier check (SPEC): the daemon validates
 * them and checks their realpath against the token's files scopes.
 */
export class Files extends APIResource {
  /** A slice of a file (GET /v1/files/peek); `truncated` when bytes remain. */
  read(params: FileReadParams, options?: RequestOptions): APIPromise<FileSlice> {
    return this._transport.request('GET', '/v1/files/peek', { query: { ...params } }, options);
  }

  /** Writes a whole file atomically (POST /v1/files/write); over 1 MiB is refused (413). */
  write(params: FileWriteParams, options?: RequestOptions): APIPromise<FileWriteResult> {
    return this._transport.request('POST', '/v1/files/write', { body: params }, options);
  }

  /** A directory's entries sorted by name (GET /v1/files/list); `truncated` when more exist. */
  list(params: FileListParams, options?: RequestOptions): APIPromise<FileList> {
    return this._transport.request('GET', '/v1/files/list', { query: { ...params } }, options);
  }
}
