/**
 * The canvas's history (docs/api-v1.md "Canvas", `canvas.history`): the recorded turns are the
 * transcripts. Search is FTS5 (migration 013), grep a regular expression run in a worker with a
 * time bound (`grep.ts`), read a node's turns as text, stats sums of turns by profile,
 * model or day. Only the nodes the caller may read are read (`readVisibility`: an app's own, and
 * those of the apps its `svc:conversations:read:app:<id>` scopes name).
 */

import type { NodeService } from '../nodes/service.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { type GrepQuery, turnGrep } from './grep.ts';
import { checkNode } from './history-deps.ts';
import { readHistory } from './history-read.ts';
import { searchHistory } from './history-search.ts';
import { historyStats } from './history-stats.ts';
import type { SearchIndex } from './search-index.ts';
import type { StatsGroup } from './store.ts';

export interface CanvasHistoryDeps {
  store: Store;
  nodes: Pick<NodeService, 'readVisibility' | 'readableRow'>;
  /** The search index, caught up before each search. */
  search: Pick<SearchIndex, 'catchUp'>;
}

export function canvasHistoryService(deps: CanvasHistoryDeps) {
  const grepTurns = turnGrep(deps.store);
  return {
    search: (principal: Principal, q: Parameters<typeof searchHistory>[2]) =>
      searchHistory(deps, principal, q),
    grep: (principal: Principal, q: GrepQuery) => {
      checkNode(deps.nodes, q.nodeId, principal);
      return grepTurns(deps.nodes.readVisibility(principal), q);
    },
    read: (principal: Principal, q: Parameters<typeof readHistory>[2]) =>
      readHistory(deps, principal, q),
    stats: (principal: Principal, q: { since?: string | undefined; groupBy: StatsGroup }) =>
      historyStats(deps, principal, q),
  };
}

export type CanvasHistoryService = ReturnType<typeof canvasHistoryService>;
