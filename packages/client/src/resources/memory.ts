import {
  describeValue,
  type MemoryDocument,
  type MemoryDocumentSummary,
  type MemoryGetQuery,
  type MemoryListQuery,
  parseMemorySpace,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { eachItem } from '../core/pages.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** `{ space?, prefix?, kind?, privacy?, limit?, after? }`; `space` defaults to `'user'`. */
export type MemoryListParams = MemoryListQuery;
/** `{ space?, path }`; `space` defaults to `'user'`. */
export type MemoryGetParams = MemoryGetQuery;
export type MemoryList = ListPage<MemoryDocumentSummary>;

/**
 * `client.memory`: the person's knowledge and preference documents (and an app's or a node's
 * own), filtered by who calls: an app sees the person's public documents, a grant holding
 * `svc:memory:manage:user` every level. Writing has no method here; it goes through
 * `client.request('PUT', '/v1/memory/document', body)` (docs/api-v1.md "Memory").
 */
export class Memory extends APIResource {
  /** One page of a space's documents, by path, without content (GET /v1/memory). */
  list(params: MemoryListParams = {}, options?: RequestOptions): PagePromise<MemoryList> {
    return this._transport.list(pathOf('memory.list'), checked(params), options);
  }

  /**
   * Every document of the list, page after page of `list` (there is no route of its own):
   * `for await (const doc of client.memory.listAll({ prefix: 'prefs/' }))`. `limit` is the
   * page size; arguments are checked now, pages fetched as the loop asks for them.
   */
  listAll(
    params: MemoryListParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<MemoryDocumentSummary, void, undefined> {
    const { after: first, ...rest } = checked(params);
    return eachItem(first, (after) =>
      this.list(after === undefined ? rest : { ...rest, after }, options),
    );
  }

  /** One document with its content (GET /v1/memory/document); a hidden one is `NotFoundError`. */
  get(params: MemoryGetParams, options?: RequestOptions): APIPromise<MemoryDocument> {
    const query = checked(params);
    if (typeof query.path !== 'string' || query.path === '') {
      throw new TypeError(
        `params.path must be a non-empty string; received ${describeValue(query.path)}`,
      );
    }
    return this._transport.request('GET', pathOf('memory.get'), { query }, options);
  }
}

/** A copy of the params object, its `space` (an identifier: app names, node ids) checked. */
function checked<P extends { space?: string | undefined }>(params: P): P {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new TypeError(`params must be an object; received ${describeValue(params)}`);
  }
  if (params.space !== undefined && parseMemorySpace(params.space) === null) {
    throw new TypeError(
      `params.space must be 'user', 'app:<id>', 'app:<id>:profile:<profile>' or 'node:<node id>'; received ${describeValue(params.space)}`,
    );
  }
  return { ...params };
}
