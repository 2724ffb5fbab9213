import {
  type FileList,
  type FileSlice,
  type FilesListQuery,
  type FilesReadQuery,
  type FilesWriteBody,
  type FileWriteResult,
  REQUEST_BODY_MAX_BYTES,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** `{ path, offset?, max_bytes? }`; `path` is absolute on the daemon's host (it checks). */
export type FileReadParams = FilesReadQuery;
/** `{ path, content, encoding?, create_parents? }`; at most 1 MiB once decoded. */
export type FileWriteParams = FilesWriteBody;
/** `{ path, limit? }`. */
export type FileListParams = FilesListQuery;

/**
 * Host files by absolute path. Paths get no local identifier check (SPEC): the daemon validates
 * them and checks their realpath against the token's files scopes.
 */
export class Files extends APIResource {
  /** A slice of a file (GET /v1/files/peek); `truncated` when bytes remain. */
  read(params: FileReadParams, options?: RequestOptions): APIPromise<FileSlice> {
    return this._transport.request('GET', pathOf('files.read'), { query: { ...params } }, options);
  }

  /**
   * Writes a whole file atomically (POST /v1/files/write); over 1 MiB is refused (413). Text whose
   * JSON escaping (`"` → `\"`, a control character → `\u0001`) would carry the body past the
   * daemon's request limit goes as base64, which any 1 MiB of content fits.
   */
  write(params: FileWriteParams, options?: RequestOptions): APIPromise<FileWriteResult> {
    return this._transport.request(
      'POST',
      pathOf('files.write'),
      { body: fitted(params) },
      options,
    );
  }

  /** A directory's entries sorted by name (GET /v1/files/list); `truncated` when more exist. */
  list(params: FileListParams, options?: RequestOptions): APIPromise<FileList> {
    return this._transport.request('GET', pathOf('files.list'), { query: { ...params } }, options);
  }
}

/** `params`, with utf8 content turned to base64 when the JSON body would not fit the limit. */
function fitted(params: FileWriteParams): FileWriteParams {
  if ((params.encoding ?? 'utf8') !== 'utf8' || typeof params.content !== 'string') return params;
  const utf8 = new TextEncoder();
  // Escaped, a character takes at most six bytes: short text needs no measuring.
  if (params.content.length * 6 < REQUEST_BODY_MAX_BYTES / 2) return params;
  if (utf8.encode(JSON.stringify(params)).byteLength <= REQUEST_BODY_MAX_BYTES) return params;
  return { ...params, content: toBase64(utf8.encode(params.content)), encoding: 'base64' };
}

/** Base64 of `bytes`, by `btoa` over chunks (every runtime has it; no `Buffer` here). */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000; // below any engine's limit on the arguments of one call
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}
