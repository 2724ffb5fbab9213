/**
 * The canvas's history (docs/api-v1.md "Canvas", `canvas.history`): the recorded turns are the
 * transcripts. Search is FTS5 (migration 013), grep a regular expression run in a worker with a
 * time bound (`canvas-grep.ts`), read a node's turns as text, stats sums of turns by profile,
 * model or day. Only the nodes the caller may read are read (`readVisibility`: an app's own, and
 * those of the apps its `svc:conversations:read:app:<id>` scopes name).
 */
import {
  type HistoryGrepResult as GrepResult,
  type HistoryStats,
  NODE_STATES,
  SEARCH_OFFSET_MAX,
  type SearchHit,
  TRANSCRIPT_ENTRY_MAX,
  type TranscriptEntry,
  type TranscriptTurn,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { StatsGroup } from '../store/canvas.ts';
import type { Store } from '../store/index.ts';
import type { Turn } from '../store/turns.ts';
import { type GrepQuery, turnGrep } from './canvas-grep.ts';
import type { NodeService } from './nodes.ts';

export type { GrepResult, HistoryStats, SearchHit, TranscriptEntry, TranscriptTurn };

/** At most this many words of a search query are used. */
const SEARCH_TERMS_MAX = 32;

export interface CanvasHistoryDeps {
  store: Store;
  nodes: Pick<NodeService, 'readVisibility' | 'readableRow'>;
}

export function canvasHistoryService({ store, nodes }: CanvasHistoryDeps) {
  const grepTurns = turnGrep(store);
  /** A node filter the caller may use: a node it cannot see is 404, as everywhere. */
  function checkNode(nodeId: string | undefined, principal: Principal): void {
    if (nodeId !== undefined) nodes.readableRow(nodeId, principal, 'node_id');
  }

  return {
    /** Best first; `offset + limit + 1` rows are read so the caller knows whether more exist. */
    search(
      principal: Principal,
      q: { q: string; nodeId?: string | undefined; offset: number; limit: number },
    ) {
      checkNode(q.nodeId, principal);
      if (q.offset > SEARCH_OFFSET_MAX) {
        throw new ApiError(
          'invalid_request',
          `search pages end after ${SEARCH_OFFSET_MAX} hits; narrow the query instead`,
          { field: 'after' },
        );
      }
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
    },

    grep(principal: Principal, q: GrepQuery): Promise<GrepResult> {
      checkNode(q.nodeId, principal);
      return grepTurns(nodes.readVisibility(principal), q);
    },

    read(principal: Principal, q: { nodeId: string; fromTurn: number; limit: number }) {
      checkNode(q.nodeId, principal);
      const indexes = store.canvas.turnIndexes(q.nodeId, q.fromTurn, q.limit + 1);
      const data = indexes
        .slice(0, q.limit)
        .flatMap((index) => {
          const turn = store.turns.get(q.nodeId, index);
          return turn === undefined ? [] : [turn];
        })
        .map(toTranscriptTurn);
      const next = indexes[q.limit];
      return {
        data,
        has_more: next !== undefined,
        next_cursor: next === undefined ? null : String(next),
      };
    },

    stats(principal: Principal, q: { since?: string | undefined; groupBy: StatsGroup }) {
      const since = q.since === undefined ? null : new Date(q.since).toISOString();
      const read = store.canvas.read(() =>
        store.canvas.stats(nodes.readVisibility(principal), q.groupBy, since),
      );
      const byState = Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<
        (typeof NODE_STATES)[number],
        number
      >;
      for (const row of read.byState)
        byState[row.state as (typeof NODE_STATES)[number]] = row.count;
      const stats: HistoryStats = {
        since,
        group_by: q.groupBy,
        groups: read.groups.map((g) => ({ ...g })),
        totals: { ...read.totals },
        nodes_by_state: byState,
      };
      return stats;
    },
  };
}

export type CanvasHistoryService = ReturnType<typeof canvasHistoryService>;

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

function entry(role: TranscriptEntry['role'], text: string): TranscriptEntry {
  const truncated = text.length > TRANSCRIPT_ENTRY_MAX;
  return { role, text: truncated ? text.slice(0, TRANSCRIPT_ENTRY_MAX) : text, truncated };
}

/** A turn as text: what the model was given, what it answered, each tool call and its result. */
function toTranscriptTurn(turn: Turn): TranscriptTurn {
  const entries = turn.input.map((m) => entry(m.role, m.text));
  if (turn.text !== '') entries.push(entry('assistant', turn.text));
  for (const call of turn.tool_calls) {
    const result =
      call.status === 'pending' ? 'pending' : `${call.status}: ${JSON.stringify(call.output)}`;
    entries.push(entry('tool', `${call.name} ${JSON.stringify(call.input)} → ${result}`));
  }
  return {
    node_id: turn.node_id,
    index: turn.index,
    model: `${turn.model.provider}/${turn.model.model}`,
    entries,
    usage: turn.usage,
    cost_usd: turn.cost_usd,
    finish_reason: turn.finish_reason,
    started_at: turn.started_at,
    finished_at: turn.finished_at,
  };
}
