/**
 * Walking a `/v1` list (DESIGN §6) page after page: a list method's iteration (`PagePromise`) and
 * the `listAll` methods without a route.
 */
import type { ListEnvelope } from '@svc/protocol';

/** The list envelope, under the client's name. */
export type ListPage<T> = ListEnvelope<T>;

/**
 * Every item of a list in order: `page(after)` fetches the page after a cursor (`first` for the
 * first page, usually none). Ends after the last page; a cursor the daemon answers twice in a row
 * ends it too, so a misbehaving server cannot make it loop forever.
 */
export async function* eachItem<T>(
  first: string | undefined,
  page: (after: string | undefined) => PromiseLike<ListPage<T>>,
): AsyncGenerator<T, void, undefined> {
  let after = first;
  for (;;) {
    const answer = await page(after);
    yield* answer.data;
    const next = answer.next_cursor;
    if (!answer.has_more || next === null || next === after) return;
    after = next;
  }
}
