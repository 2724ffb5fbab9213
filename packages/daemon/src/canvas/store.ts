/**
 * Reads the canvas needs across nodes, turns and the event log (docs/api-v1.md "Canvas"). Every
 * query that spans nodes filters them by the nodes store's own visibility rule (`VISIBLE`), so
 * the canvas never shows a node `nodes.retrieve` would answer 404 for. The full-text index
 * `turn_search` is migration 013's.
 */

import { VISIBLE, type Visibility, visibilityParams } from '../nodes/store/nodes.ts';
import type { Db } from '../store/db.ts';
import type { EventRow } from '../store/events.ts';

export interface PruneCandidate {
  id: string;
  run_id: string | null;
  nodes: number;
}

export interface SearchRow {
  node_id: string;
  turn: number;
  title: string;
  snippet: string;
  created_at: string;
}

/** One turn as grep reads it: its text parts, newest turns first. */
export interface GrepRow {
  cursor: number;
  node_id: string;
  idx: number;
  /** The turn's input messages. */
  input: { text: string }[];
  text: string;
  /** Its tool calls, input and output as the stored JSON text (grep matches that text). */
  calls: { name: string; input: string | null; output: string | null }[];
  started_at: string;
}

/** A grep row as SQLite holds it: the input messages and the calls as JSON text. */
type StoredGrepRow = Omit<GrepRow, 'input' | 'calls'> & { input: string; calls: string };

/** A cron's last fire: when, and the error it answered (`null` when it made its node). */
export interface CronFire {
  created_at: string;
  error: { code: string; message: string } | null;
}

export interface UsageTotals {
  nodes: number;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export type StatsGroup = 'profile' | 'model' | 'day';

const FINAL = `('done', 'failed', 'cancelled')`;

const TOTALS = `count(DISTINCT t.node_id) AS nodes, count(*) AS turns,
  coalesce(sum(t.input_tokens), 0) AS input_tokens, coalesce(sum(t.output_tokens), 0) AS output_tokens,
  coalesce(sum(t.cost_usd), 0) AS cost_usd`;

const TURNS_SINCE = `FROM turns t JOIN nodes n ON n.id = t.node_id
  WHERE ${VISIBLE} AND (:since IS NULL OR t.started_at >= :since)`;

const GROUP_KEYS: Record<StatsGroup, string> = {
  profile: 'n.profile',
  model: `json_extract(t.model, '$.provider') || '/' || json_extract(t.model, '$.model')`,
  day: 'substr(t.started_at, 1, 10)',
};

export function canvasStore(db: Db) {
  const prepareStats = (group: StatsGroup) =>
    db.sqlite.prepare(
      `SELECT ${GROUP_KEYS[group]} AS key, ${TOTALS} ${TURNS_SINCE} GROUP BY key ORDER BY key`,
    );
  const q = {
    lastTurnAt: db.sqlite.prepare(
      'SELECT finished_at FROM turns WHERE node_id = ? ORDER BY idx DESC LIMIT 1',
    ),
    // Roots whose whole tree is final and ended before the cutoff, oldest first.
    pruneCandidates: db.sqlite.prepare(
      `SELECT r.id, r.run_id, count(*) AS nodes FROM nodes r JOIN nodes t ON t.root_id = r.id
       WHERE r.parent_id IS NULL AND (:runs = 1 OR r.run_id IS NULL)
       GROUP BY r.id
       HAVING sum(t.state NOT IN ${FINAL}) = 0
         AND max(coalesce(t.finished_at, t.updated_at)) < :cutoff
       ORDER BY r.id LIMIT :limit`,
    ),
    lastCronFire: db.sqlite.prepare(
      `SELECT * FROM events WHERE subject = ? AND kind = 'cron.fired' ORDER BY seq DESC LIMIT 1`,
    ),
    search: db.sqlite.prepare(
      `SELECT turn_search.node_id AS node_id, turn_search.turn AS turn, n.title AS title,
         snippet(turn_search, 0, '[', ']', '…', 24) AS snippet, t.started_at AS created_at
       FROM turn_search
         JOIN nodes n ON n.id = turn_search.node_id
         JOIN turns t ON t.rowid = turn_search.rowid
       WHERE turn_search MATCH :match AND (:node IS NULL OR turn_search.node_id = :node)
         AND ${VISIBLE}
       ORDER BY turn_search.rank LIMIT :limit OFFSET :offset`,
    ),
    grepPage: db.sqlite.prepare(
      `SELECT t.rowid AS cursor, t.node_id, t.idx, t.input, t.text, t.started_at,
         (SELECT json_group_array(json_object('name', c.name, 'input', c.input, 'output', c.output))
            FROM tool_calls c WHERE c.node_id = t.node_id AND c.turn_idx = t.idx) AS calls
       FROM turns t JOIN nodes n ON n.id = t.node_id
       WHERE t.rowid < :before AND (:node IS NULL OR t.node_id = :node) AND ${VISIBLE}
       ORDER BY t.rowid DESC LIMIT :limit`,
    ),
    turnIndexes: db.sqlite.prepare(
      'SELECT idx FROM turns WHERE node_id = ? AND idx >= ? ORDER BY idx LIMIT ?',
    ),
    stats: {
      profile: prepareStats('profile'),
      model: prepareStats('model'),
      day: prepareStats('day'),
    },
    totals: db.sqlite.prepare(`SELECT ${TOTALS} ${TURNS_SINCE}`),
    nodesByState: db.sqlite.prepare(
      `SELECT n.state AS state, count(*) AS count FROM nodes n
       WHERE ${VISIBLE} AND (:since IS NULL OR n.created_at >= :since) GROUP BY n.state`,
    ),
  };

  return {
    /**
     * Runs `fn` in one read transaction (a snapshot of the database), unless the caller is in
     * a transaction already; so what it reads belongs to a single committed state.
     */
    read<T>(fn: () => T): T {
      if (db.sqlite.isTransaction) return fn();
      db.sqlite.exec('BEGIN DEFERRED');
      try {
        return fn();
      } finally {
        if (db.sqlite.isTransaction) db.sqlite.exec('COMMIT');
      }
    },
    lastTurnAt(nodeId: string): string | null {
      return (q.lastTurnAt.get(nodeId) as { finished_at: string } | undefined)?.finished_at ?? null;
    },
    pruneCandidates(opts: {
      cutoff: string;
      includeRuns: boolean;
      limit: number;
    }): PruneCandidate[] {
      return q.pruneCandidates.all({
        cutoff: opts.cutoff,
        runs: opts.includeRuns ? 1 : 0,
        limit: opts.limit,
      }) as unknown as PruneCandidate[];
    },
    /** The newest `cron.fired` event of a cron, if it ever fired. */
    lastCronFire(cronId: string): CronFire | undefined {
      const row = q.lastCronFire.get(cronId) as EventRow | undefined;
      if (row === undefined) return undefined;
      const { error } = JSON.parse(row.payload) as { error?: CronFire['error'] };
      return { created_at: row.created_at, error: error ?? null };
    },
    /** Turns matching an FTS5 query (already quoted by the caller), best first. */
    search(
      vis: Visibility,
      opts: { match: string; nodeId?: string | undefined; limit: number; offset: number },
    ): SearchRow[] {
      return q.search.all({
        ...visibilityParams(vis),
        match: opts.match,
        node: opts.nodeId ?? null,
        limit: opts.limit,
        offset: opts.offset,
      }) as unknown as SearchRow[];
    },
    /** Up to `limit` visible turns recorded before the `before` cursor, newest first. */
    grepPage(
      vis: Visibility,
      opts: { before: number; nodeId?: string | undefined; limit: number },
    ): GrepRow[] {
      const rows = q.grepPage.all({
        ...visibilityParams(vis),
        before: opts.before,
        node: opts.nodeId ?? null,
        limit: opts.limit,
      }) as unknown as StoredGrepRow[];
      return rows.map((row) => ({
        ...row,
        input: JSON.parse(row.input) as GrepRow['input'],
        calls: JSON.parse(row.calls) as GrepRow['calls'],
      }));
    },
    /** The indexes of a node's turns from `from` on, at most `limit`. */
    turnIndexes(nodeId: string, from: number, limit: number): number[] {
      return (q.turnIndexes.all(nodeId, from, limit) as { idx: number }[]).map((r) => r.idx);
    },
    stats(vis: Visibility, group: StatsGroup, since: string | null) {
      const params = { ...visibilityParams(vis), since };
      return {
        groups: q.stats[group].all(params) as unknown as (UsageTotals & { key: string })[],
        totals: q.totals.get(params) as unknown as UsageTotals,
        byState: q.nodesByState.all(params) as unknown as { state: string; count: number }[],
      };
    },
  };
}

export type CanvasStore = ReturnType<typeof canvasStore>;
