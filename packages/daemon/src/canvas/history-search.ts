/**
 * `canvas.history.search`: FTS5 over the recorded turns (migration 013, written by
 * `search-index.ts`), best first.
 */
import { SEARCH_OFFSET_MAX, type searchHitSchema } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { checkNode, type HistoryDeps } from './history-deps.ts';
import type { SearchIndex } from './search-index.ts';

export type SearchHit = z.output<typeof searchHitSchema>;

/** At most this many words of a search query are used. */
const SEARCH_TERMS_MAX = 32;

/** Best first; `offset + limit + 1` rows are read so the caller knows whether more exist. */
export function searchHistory(
  { store, nodes, search }: HistoryDeps & { search: Pick<SearchIndex, 'catchUp'> },
  principal: Principal,
  q: { q: string; nodeId?: string | undefined; offset: number; limit: number },
) {
  checkNode(nodes, q.nodeId, principal);
  if (q.offset > SEARCH_OFFSET_MAX) {
    throw new ApiError(
      'invalid_request',
      `search pages end after ${SEARCH_OFFSET_MAX} hits; narrow the query instead`,
      { field: 'after' },
    );
  }
  // Every turn recorded before the search is in the index it reads.
  search.catchUp();
  const rows = store.canvas.search(nodes.readVisibility(principal), {
    match: ftsQuery(q.q),
    nodeId: q.nodeId,
    limit: q.limit + 1,
    offset: q.offset,
  });
  const data: SearchHit[] = rows.slice(0, q.limit).map((r) => ({ ...r }));
  const hasMore = rows.length > q.limit;
  return {
    data,
    has_more: hasMore,
    next_cursor: hasMore ? String(q.offset + q.limit) : null,
  };
}

/**
 * The words of `q` as an FTS5 query: each quoted (so no word is read as FTS5 syntax), all of them
 * required; a word ending in `*` matches as a prefix. No word with a letter or digit: 422.
 */
function ftsQuery(q: string): string {
  const terms = q
    .split(/\s+/)
    .filter((t) => /[\p{L}\p{N}]/u.test(t))
    .slice(0, SEARCH_TERMS_MAX);
  if (terms.length === 0) {
    throw new ApiError('validation_failed', 'q holds no word to search for', {
      field: 'q',
      received: q.slice(0, 64),
    });
  }
  return terms
    .map((term) => {
      const prefix = term.endsWith('*');
      const word = prefix ? term.slice(0, -1) : term;
      return `"${word.replaceAll('"', '""')}"${prefix ? '*' : ''}`;
    })
    .join(' ');
}
