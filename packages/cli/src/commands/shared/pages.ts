/** Listings the CLI prints whole: every page of a `/v1` list, followed to the end. */
import { LIST_LIMIT_MAX, type ListEnvelope as Page } from '@svc/protocol';

/** The list envelope (DESIGN §6). */
export type { Page };

/** Pages are followed to the end, but never forever. */
const MAX_PAGES = 100;

/** Every row, asking `page` for each page after the cursor it was given (none for the first). */
export async function allPages<T>(
  page: (after: string | undefined) => Promise<Page<T>>,
): Promise<T[]> {
  const rows: T[] = [];
  let after: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const answer = await page(after);
    rows.push(...answer.data);
    if (!answer.has_more || answer.next_cursor === null) break;
    after = answer.next_cursor;
  }
  return rows;
}

/** The query of one page of as many rows as the daemon gives at once. */
export function pageQuery(after: string | undefined): string {
  const limit = `?limit=${LIST_LIMIT_MAX}`;
  return after === undefined ? limit : `${limit}&after=${encodeURIComponent(after)}`;
}
