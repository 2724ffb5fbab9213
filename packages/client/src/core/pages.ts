/**
 * Walking a `/v1` list (DESIGN §6) page after page: a list method's iteration (`PagePromise`) and
 * the `listAll` methods without a route.
 */

/** The list envelope. */
export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

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
