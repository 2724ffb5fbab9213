import { APIPromise } from './api-promise.ts';
import type { RawResponse } from './transport.ts';

/** A page of a list route (DESIGN §6): `{data, has_more, next_cursor}`. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * What a list method returns: awaited, its first page, as any call; iterated with `for await`,
 * every item of every page, each next page asked for with `after` set to the previous page's
 * `next_cursor`, with the same options (as the Stainless SDKs' list methods are).
 */
export class PagePromise<P extends Page<T>, T = P['data'][number]>
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

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    let page: P = await this;
    for (;;) {
      yield* page.data;
      if (!page.has_more || page.next_cursor === null) return;
      page = await this.#next(page.next_cursor);
    }
  }
}
