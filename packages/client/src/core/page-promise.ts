import { APIPromise } from './api-promise.ts';
import { eachItem, type ListPage } from './pages.ts';
import type { RawResponse } from './transport.ts';

/**
 * What a list method returns: awaited, its first page, as any call; iterated with `for await`,
 * every item of every page, each next page asked for with `after` set to the previous page's
 * `next_cursor`, with the same options (as the Stainless SDKs' list methods are).
 */
export class PagePromise<P extends ListPage<T>, T = P['data'][number]>
  extends APIPromise<P>
  implements AsyncIterable<T>
{
  readonly #next: (cursor: string) => PagePromise<P, T>;

  constructor(
    raw: Promise<RawResponse>,
    parse: (raw: RawResponse) => Promise<P>,
    next: (cursor: string) => PagePromise<P, T>,
  ) {
    super(raw, parse);
    this.#next = next;
  }

  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return eachItem<T>(undefined, (after) => (after === undefined ? this : this.#next(after)));
  }
}
