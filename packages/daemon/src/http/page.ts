/**
 * Pages of list routes (docs/api-v1.md, "Conventions"): `?limit` (default 50) rows after
 * `?after`, one more row read than shown so `has_more` needs no count. A route declares its page
 * in the protocol's table (`RouteDef.page`); `Call.page` runs it.
 */
import { ApiError } from '../errors.ts';

export const DEFAULT_LIMIT = 50;

/** `{data, has_more, next_cursor}` from `limit + 1` rows. */
export function page<T>(rows: T[], limit: number, cursorOf: (item: T) => string) {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data, has_more: hasMore, next_cursor: hasMore ? cursorOf(data.at(-1)!) : null };
}

/** A numeric cursor (a seq, a row order) from `?after=`; 0 when absent. */
export function numericCursor(after: string | undefined): number {
  if (after === undefined) return 0;
  if (!/^\d{1,15}$/.test(after)) {
    throw new ApiError('invalid_request', 'after must be the next_cursor of the previous page', {
      field: 'after',
      received: after.slice(0, 64),
    });
  }
  return Number(after);
}
