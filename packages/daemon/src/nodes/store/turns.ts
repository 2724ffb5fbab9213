/**
 * Turns and their tool calls: the recorded conversation of each node (`turns`, `tool_calls` of
 * migration 003). A turn is keyed `(node_id, index)`, a tool call `(node_id, id)`; both answer
 * as the protocol's `Turn` and `ToolCall` DTOs.
 */
import type { ToolCall, Turn, TurnMessage } from '@svc/protocol';
import type { Db } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';

export type { ToolCall, Turn, TurnMessage };

/** A turn to insert: the DTO without its derived tool-call state, plus the record's fingerprint. */
export interface NewTurn {
  node_id: string;
  index: number;
  model: { provider: string; model: string };
  input: TurnMessage[];
  text: string;
  /** In the model's order; each starts `pending`, or `error` when it cannot run (`error` set). */
  tool_calls: { id: string; name: string; input: unknown; error?: string | undefined }[];
  usage: { input_tokens: number; output_tokens: number };
  cost_usd: number | null;
  finish_reason: string;
  started_at: string;
  finished_at: string;
  /** SHA-256 of the record body, so a retried record is recognized (docs/nodes.md, broker §6). */
  fingerprint: string;
}

export interface ToolResult {
  status: 'ok' | 'error';
  output: unknown;
  job_id: string | null;
  finished_at: string;
}

interface TurnRow {
  node_id: string;
  idx: number;
  model: string;
  input: string;
  text: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  finish_reason: string;
  started_at: string;
  finished_at: string;
  fingerprint: string;
}

interface ToolCallRow {
  node_id: string;
  id: string;
  turn_idx: number;
  position: number;
  name: string;
  input: string | null;
  status: ToolCall['status'];
  output: string | null;
  job_id: string | null;
  finished_at: string | null;
}

/** The statements of `turnStore`, prepared once per database. */
function prepare(db: Db) {
  return {
    insert: db.sqlite.prepare(
      `INSERT INTO turns (node_id, idx, model, input, text, input_tokens, output_tokens, cost_usd,
         finish_reason, started_at, finished_at, fingerprint)
       VALUES (:node_id, :idx, :model, :input, :text, :input_tokens, :output_tokens, :cost_usd,
         :finish_reason, :started_at, :finished_at, :fingerprint)`,
    ),
    insertCall: db.sqlite.prepare(
      `INSERT INTO tool_calls (node_id, id, turn_idx, position, name, input, status, output, job_id,
         finished_at)
       VALUES (:node_id, :id, :turn_idx, :position, :name, :input, :status, :output, :job_id,
         :finished_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM turns WHERE node_id = ? AND idx = ?'),
    last: db.sqlite.prepare('SELECT * FROM turns WHERE node_id = ? ORDER BY idx DESC LIMIT 1'),
    ofNode: db.sqlite.prepare('SELECT * FROM turns WHERE node_id = ? AND idx <= ? ORDER BY idx'),
    callsOf: db.sqlite.prepare(
      'SELECT * FROM tool_calls WHERE node_id = ? AND turn_idx = ? ORDER BY position',
    ),
    call: db.sqlite.prepare('SELECT * FROM tool_calls WHERE node_id = ? AND id = ?'),
    settle: db.sqlite.prepare(
      `UPDATE tool_calls SET status = :status, output = :output, job_id = :job_id,
         finished_at = :finished_at
       WHERE node_id = :node_id AND id = :id AND status = 'pending'`,
    ),
    // The trace of a tree: in recording order (rowid), after a `(rowid)` cursor.
    ofTree: db.sqlite.prepare(
      `SELECT t.rowid AS cursor, t.* FROM turns t JOIN nodes n ON n.id = t.node_id
       WHERE n.root_id = :root_id AND (:node_id IS NULL OR t.node_id = :node_id) AND t.rowid > :after
       ORDER BY t.rowid LIMIT :limit`,
    ),
  };
}

export function turnStore(db: Db) {
  const q = prepare(db);

  const toTurn = (row: TurnRow): Turn => ({
    node_id: row.node_id,
    index: row.idx,
    model: JSON.parse(row.model) as Turn['model'],
    input: JSON.parse(row.input) as TurnMessage[],
    text: row.text,
    tool_calls: (q.callsOf.all(row.node_id, row.idx) as unknown as ToolCallRow[]).map(toCall),
    usage: { input_tokens: row.input_tokens, output_tokens: row.output_tokens },
    cost_usd: row.cost_usd,
    finish_reason: row.finish_reason,
    started_at: row.started_at,
    finished_at: row.finished_at,
  });

  return {
    /**
     * Inserts turn `index` and its tool calls (call in the transaction that also records the
     * event and usage). A duplicate `(node_id, index)` or tool call id throws (UNIQUE).
     */
    insert(turn: NewTurn): Turn {
      q.insert.run({
        node_id: turn.node_id,
        idx: turn.index,
        model: JSON.stringify({ provider: turn.model.provider, model: turn.model.model }),
        input: JSON.stringify(turn.input),
        text: turn.text,
        input_tokens: turn.usage.input_tokens,
        output_tokens: turn.usage.output_tokens,
        cost_usd: turn.cost_usd,
        finish_reason: turn.finish_reason,
        started_at: turn.started_at,
        finished_at: turn.finished_at,
        fingerprint: turn.fingerprint,
      });
      const calls: ToolCall[] = [];
      for (const [position, call] of turn.tool_calls.entries()) {
        const failed = call.error !== undefined;
        calls.push({
          id: call.id,
          name: call.name,
          input: call.input ?? null,
          status: failed ? 'error' : 'pending',
          output: failed ? call.error : null,
          job_id: null,
          finished_at: failed ? turn.finished_at : null,
        });
        q.insertCall.run({
          node_id: turn.node_id,
          id: call.id,
          turn_idx: turn.index,
          position,
          name: call.name,
          input: toJson(call.input),
          status: failed ? 'error' : 'pending',
          output: failed ? JSON.stringify(call.error) : null,
          job_id: null,
          finished_at: failed ? turn.finished_at : null,
        });
      }
      // What `get` would read back, without reading it: the rows hold just these values.
      return {
        node_id: turn.node_id,
        index: turn.index,
        // As `get` reads it: the column holds whatever provider name was recorded.
        model: { provider: turn.model.provider, model: turn.model.model } as Turn['model'],
        input: turn.input,
        text: turn.text,
        tool_calls: calls,
        usage: { input_tokens: turn.usage.input_tokens, output_tokens: turn.usage.output_tokens },
        cost_usd: turn.cost_usd,
        finish_reason: turn.finish_reason,
        started_at: turn.started_at,
        finished_at: turn.finished_at,
      };
    },
    get(nodeId: string, index: number): Turn | undefined {
      const row = q.get.get(nodeId, index) as TurnRow | undefined;
      return row === undefined ? undefined : toTurn(row);
    },
    /** The fingerprint of a recorded turn, to tell a retried record from a conflicting one. */
    fingerprint(nodeId: string, index: number): string | undefined {
      return (q.get.get(nodeId, index) as TurnRow | undefined)?.fingerprint;
    },
    /** The newest turn's index; 0 when the node has none. */
    lastIndex(nodeId: string): number {
      return (q.last.get(nodeId) as TurnRow | undefined)?.idx ?? 0;
    },
    /** The newest turn's index (0 when none) and fingerprint: a record's checks in one read. */
    last(nodeId: string): { index: number; fingerprint: string | undefined } {
      const row = q.last.get(nodeId) as TurnRow | undefined;
      return { index: row?.idx ?? 0, fingerprint: row?.fingerprint };
    },
    /** The node's turns `1..through` (default all), oldest first: what a broker resumes from. */
    list(nodeId: string, through = Number.MAX_SAFE_INTEGER): Turn[] {
      return (q.ofNode.all(nodeId, through) as unknown as TurnRow[]).map(toTurn);
    },
    toolCall(nodeId: string, callId: string): (ToolCall & { turn_index: number }) | undefined {
      const row = q.call.get(nodeId, callId) as ToolCallRow | undefined;
      return row === undefined ? undefined : { ...toCall(row), turn_index: row.turn_idx };
    },
    /**
     * Records a pending call's result; `false` when the call is unknown or already settled (the
     * caller answers the recorded one: a retried record is a no-op).
     */
    settleToolCall(nodeId: string, callId: string, result: ToolResult): boolean {
      const changes = q.settle.run({
        node_id: nodeId,
        id: callId,
        status: result.status,
        output: toJson(result.output),
        job_id: result.job_id,
        finished_at: result.finished_at,
      }).changes;
      return changes > 0;
    },
    /** Copies turns `1..through` of `from` (with their tool calls) to the new node `to` (fork). */
    copy(from: string, to: string, through: number): number {
      const turns = (q.ofNode.all(from, through) as unknown as TurnRow[]).map((row) => ({
        row,
        calls: q.callsOf.all(from, row.idx) as unknown as ToolCallRow[],
      }));
      for (const { row, calls } of turns) {
        q.insert.run({ ...row, node_id: to });
        for (const call of calls) q.insertCall.run({ ...call, node_id: to });
      }
      return turns.length;
    },
    /** A page of a tree's turns in recording order; `after` is the previous page's cursor. */
    listTree(
      rootId: string,
      opts: { nodeId?: string | undefined; after: number; limit: number },
    ): { turn: Turn; cursor: number }[] {
      const rows = q.ofTree.all({
        root_id: rootId,
        node_id: opts.nodeId ?? null,
        after: opts.after,
        limit: opts.limit,
      }) as unknown as (TurnRow & { cursor: number })[];
      return rows.map((row) => ({ turn: toTurn(row), cursor: row.cursor }));
    },
  };
}

export type TurnStore = ReturnType<typeof turnStore>;

function toCall(row: ToolCallRow): ToolCall {
  return {
    id: row.id,
    name: row.name,
    input: fromJson(row.input),
    status: row.status,
    output: fromJson(row.output),
    job_id: row.job_id,
    finished_at: row.finished_at,
  };
}
