/**
 * The canvas (docs/api-v1.md "Canvas"): what needs the person, the visible nodes at one event
 * seq, the live agents, pruning old trees, and the history of recorded turns (search, grep, read,
 * stats). Every read shows only the nodes the caller may see (docs/nodes.md "Visibility").
 */
import { z } from 'zod';
import { NODE_STATES } from '../nodes/state-machine.ts';
import {
  idSchema,
  LIST_LIMIT_MAX,
  listOf,
  listQuerySchema,
  queryBool,
  queryInt,
  timestampSchema,
} from './common.ts';
import { modelRefSchema } from './models.ts';
import {
  budgetsSchema,
  nodeStateSchema,
  turnUsageSchema,
  usageSchema,
  waitingOnSchema,
} from './nodes.ts';

const nodeId = idSchema('node');

// ── attention ──────────────────────────────────────────────────────────────────────────────

/**
 * What can need the person: an open inbox ticket, a failed node, a node waiting on a human
 * request that has no open ticket (nothing in the inbox would unblock it), a node parked at a
 * budget, a cron whose last fire failed.
 */
export const ATTENTION_KINDS = [
  'ticket',
  'node_failed',
  'node_waiting_human',
  'node_budget',
  'cron_failed',
] as const;

export const attentionKindSchema = z.enum(ATTENTION_KINDS);

export const attentionItemSchema = z.object({
  kind: attentionKindSchema,
  node_id: nodeId.nullable().describe('the node concerned (for a ticket: the asking node)'),
  ticket_id: idSchema('ticket').nullable(),
  cron_id: idSchema('cron').nullable(),
  title: z.string(),
  reason: z.string().describe('what happened, in words'),
  since: timestampSchema.describe('when it began needing attention'),
});
export type AttentionItem = z.output<typeof attentionItemSchema>;

const kindsList = z
  .string()
  .regex(new RegExp(`^(${ATTENTION_KINDS.join('|')})(,(${ATTENTION_KINDS.join('|')}))*$`))
  .transform((s) => [...new Set(s.split(','))] as z.output<typeof attentionKindSchema>[])
  .describe(`comma-separated kinds (${ATTENTION_KINDS.join(', ')})`);

export const attentionQuerySchema = listQuerySchema.extend({
  after: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('the next_cursor of the previous page (newest first)'),
  kinds: kindsList.optional(),
});
export type AttentionQuery = z.output<typeof attentionQuerySchema>;

export const attentionCountsSchema = z.object({
  total: z.number().int().nonnegative(),
  by_kind: z.object(
    Object.fromEntries(ATTENTION_KINDS.map((k) => [k, z.number().int().nonnegative()])) as Record<
      (typeof ATTENTION_KINDS)[number],
      z.ZodNumber
    >,
  ),
});
export type AttentionCounts = z.output<typeof attentionCountsSchema>;

// ── snapshot and roster ────────────────────────────────────────────────────────────────────

export const SNAPSHOT_LIMIT_DEFAULT = 500;
export const SNAPSHOT_LIMIT_MAX = 5000;
export const TASK_SUMMARY_MAX = 200;

/** A node as the canvas draws it: no task body, scopes, schema or outcome payload. */
export const canvasNodeSchema = z.object({
  id: nodeId,
  parent_id: nodeId.nullable(),
  root_id: nodeId,
  run_id: idSchema('run').nullable(),
  app_id: z.string().nullable(),
  profile: z.string(),
  title: z.string(),
  task_summary: z.string().describe(`the task's first ${TASK_SUMMARY_MAX} characters`),
  state: nodeStateSchema,
  state_reason: z.string().nullable(),
  waiting_on: waitingOnSchema.nullable(),
  model: modelRefSchema,
  usage: usageSchema,
  created_at: timestampSchema,
  updated_at: timestampSchema,
  finished_at: timestampSchema.nullable(),
});
export type CanvasNode = z.output<typeof canvasNodeSchema>;

export const canvasSnapshotQuerySchema = z.object({
  limit: queryInt(1, SNAPSHOT_LIMIT_MAX)
    .optional()
    .describe(`default ${SNAPSHOT_LIMIT_DEFAULT}; the newest nodes first`),
  root_id: nodeId.optional().describe('only this tree'),
});
export type CanvasSnapshotQuery = z.output<typeof canvasSnapshotQuerySchema>;

export const canvasSnapshotSchema = z.object({
  seq: z
    .number()
    .int()
    .nonnegative()
    .describe('the last event seq this picture includes: stream events after it (?after=seq)'),
  nodes: z.array(canvasNodeSchema),
  truncated: z
    .boolean()
    .describe('more visible nodes exist than `limit`; the oldest were left out'),
});
export type CanvasSnapshot = z.output<typeof canvasSnapshotSchema>;

export const rosterEntrySchema = z.object({
  node_id: nodeId,
  title: z.string(),
  profile: z.string(),
  model: modelRefSchema,
  state: nodeStateSchema,
  state_reason: z.string().nullable(),
  waiting_on: waitingOnSchema.nullable().describe('its current wait'),
  broker: z
    .object({
      pid: z.number().int().nullable(),
      since: timestampSchema.describe('when the broker process started'),
      claimed_at: timestampSchema.nullable().describe('when it took the node'),
    })
    .nullable()
    .describe('its live broker process; null while queued or parked'),
  usage: usageSchema.describe('turns, tokens and cost so far'),
  budgets: budgetsSchema,
  since: timestampSchema.describe('its first turn, else its creation'),
  last_turn_at: timestampSchema.nullable(),
});
export type RosterEntry = z.output<typeof rosterEntrySchema>;

export const LIVE_STATES = ['queued', 'running', 'waiting'] as const;

export const rosterQuerySchema = listQuerySchema.extend({
  after: nodeId.optional().describe('the next_cursor of the previous page'),
  state: z
    .string()
    .regex(new RegExp(`^(${LIVE_STATES.join('|')})(,(${LIVE_STATES.join('|')}))*$`))
    .transform((s) => s.split(',') as (typeof LIVE_STATES)[number][])
    .optional()
    .describe('comma-separated live states (queued, running, waiting); default all three'),
});
export type RosterQuery = z.output<typeof rosterQuerySchema>;

// ── prune ──────────────────────────────────────────────────────────────────────────────────

export const PRUNE_DEFAULT_OLDER_THAN_S = 7 * 24 * 3600;
export const PRUNE_LIMIT_MAX = 1000;

export const canvasPruneBodySchema = z.strictObject({
  older_than_s: z
    .number()
    .int()
    .min(0)
    .max(100 * 365 * 24 * 3600)
    .optional()
    .describe(
      `a tree qualifies once every node of it ended at least this long ago (default ${PRUNE_DEFAULT_OLDER_THAN_S}, 7 days)`,
    ),
  dry_run: z.boolean().optional().describe('answer what would be pruned, remove nothing'),
  include_runs: z
    .boolean()
    .optional()
    .describe("also prune the trees of apps' runs (default false: an app deletes its own runs)"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(PRUNE_LIMIT_MAX)
    .optional()
    .describe('at most this many trees per call (default 500); has_more says whether more qualify'),
});
export type CanvasPruneBody = z.output<typeof canvasPruneBodySchema>;

export const canvasPruneResultSchema = z.object({
  pruned: z.array(nodeId).describe('the roots of the trees removed (or, dry run, to remove)'),
  count: z.number().int().nonnegative().describe('how many trees'),
  nodes: z.number().int().nonnegative().describe('how many nodes those trees held'),
  dry_run: z.boolean(),
  has_more: z.boolean().describe('more trees qualify than `limit`: call again'),
});
export type CanvasPruneResult = z.output<typeof canvasPruneResultSchema>;

/** The payload of a `canvas.pruned` event. */
export const canvasPrunedPayloadSchema = z.object({
  root_ids: z.array(nodeId),
  nodes: z.number().int().nonnegative(),
  run_ids: z.array(idSchema('run')),
  older_than_s: z.number().int().nonnegative(),
});

// ── history ────────────────────────────────────────────────────────────────────────────────

export const HISTORY_QUERY_MAX = 500;
/** A search page is an offset into the ranked hits; past this, narrow the query instead. */
export const SEARCH_OFFSET_MAX = 10_000;

export const historySearchQuerySchema = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(HISTORY_QUERY_MAX)
    .describe('words to find (every one must occur); a trailing * matches a prefix'),
  node_id: nodeId.optional().describe('only this node'),
  limit: queryInt(1, LIST_LIMIT_MAX).optional().describe('default 20'),
  after: z
    .string()
    .regex(/^\d{1,5}$/)
    .optional()
    .describe('the next_cursor of the previous page'),
});
export type HistorySearchQuery = z.output<typeof historySearchQuerySchema>;

export const searchHitSchema = z.object({
  node_id: nodeId,
  turn: z.number().int().positive(),
  title: z.string().describe("the node's title"),
  snippet: z.string().describe('the text around the match, matched words in [brackets]'),
  created_at: timestampSchema.describe('when the turn started'),
});
export type SearchHit = z.output<typeof searchHitSchema>;

export const historySearchResultSchema = listOf(searchHitSchema);
export type HistorySearchResult = z.output<typeof historySearchResultSchema>;

export const GREP_PATTERN_MAX = 500;

export const historyGrepQuerySchema = z.object({
  pattern: z
    .string()
    .min(1)
    .max(GREP_PATTERN_MAX)
    .describe('a JavaScript regular expression, matched against each line'),
  ignore_case: queryBool.optional(),
  node_id: nodeId.optional().describe('only this node'),
  limit: queryInt(1, LIST_LIMIT_MAX).optional().describe('default 50'),
});
export type HistoryGrepQuery = z.output<typeof historyGrepQuerySchema>;

export const grepHitSchema = z.object({
  node_id: nodeId,
  turn: z.number().int().positive(),
  where: z
    .enum(['input', 'text', 'tool_call'])
    .describe('a message given to the model, its answer, or a tool call and its result'),
  line: z.string().describe('the matching line, cut around the match when long'),
  created_at: timestampSchema,
});
export type GrepHit = z.output<typeof grepHitSchema>;

export const historyGrepResultSchema = z.object({
  data: z.array(grepHitSchema).describe('newest turns first'),
  truncated: z.boolean().describe('stopped at `limit`, or at the scan bound, before the end'),
  timed_out: z.boolean().describe('stopped at the time bound; the hits are those found by then'),
  scanned_turns: z.number().int().nonnegative(),
});
export type HistoryGrepResult = z.output<typeof historyGrepResultSchema>;

export const historyReadQuerySchema = z.object({
  node_id: nodeId,
  from_turn: queryInt(1, 1_000_000).optional().describe('default 1'),
  limit: queryInt(1, LIST_LIMIT_MAX).optional().describe('default 50'),
});

export const TRANSCRIPT_ENTRY_MAX = 20_000;

export const transcriptEntrySchema = z.object({
  role: z
    .enum(['system', 'user', 'assistant', 'tool'])
    .describe('tool: one tool call with its input, status and output'),
  text: z.string(),
  truncated: z.boolean().describe(`cut at ${TRANSCRIPT_ENTRY_MAX} characters`),
});
export type TranscriptEntry = z.output<typeof transcriptEntrySchema>;

export const transcriptTurnSchema = z.object({
  node_id: nodeId,
  index: z.number().int().positive(),
  model: z.string().describe('provider/model'),
  entries: z.array(transcriptEntrySchema),
  usage: turnUsageSchema,
  cost_usd: z.number().nonnegative().nullable(),
  finish_reason: z.string(),
  started_at: timestampSchema,
  finished_at: timestampSchema,
});
export type TranscriptTurn = z.output<typeof transcriptTurnSchema>;

/** `next_cursor` is the `from_turn` of the next page. */
export const historyReadResultSchema = listOf(transcriptTurnSchema);
export type HistoryReadResult = z.output<typeof historyReadResultSchema>;

export const STATS_GROUPS = ['profile', 'model', 'day'] as const;
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

export const historyStatsQuerySchema = z.object({
  since: z.iso
    .datetime({ offset: true })
    // An offset can carry the instant past 9999 (UTC), which has no four-digit-year timestamp to
    // compare the stored ones with: it would count every turn instead of none.
    .refine((v) => Date.parse(v) <= LAST_INSTANT, 'must be at most 9999-12-31T23:59:59.999Z')
    .optional()
    .describe('only turns started (and nodes created) at or after this time; default all'),
  group_by: z.enum(STATS_GROUPS).optional().describe("default 'day' (UTC)"),
});
export type HistoryStatsQuery = z.output<typeof historyStatsQuerySchema>;

const totalsShape = {
  nodes: z.number().int().nonnegative().describe('nodes with a turn in it'),
  turns: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative().describe('turns of a model without a known price count 0'),
};

export const historyStatsSchema = z.object({
  since: timestampSchema.nullable(),
  group_by: z.enum(STATS_GROUPS),
  groups: z.array(z.object({ key: z.string(), ...totalsShape })).describe('sorted by key'),
  totals: z.object(totalsShape),
  nodes_by_state: z
    .object(
      Object.fromEntries(NODE_STATES.map((s) => [s, z.number().int().nonnegative()])) as Record<
        (typeof NODE_STATES)[number],
        z.ZodNumber
      >,
    )
    .describe('visible nodes created since `since`, by their state now'),
});
export type HistoryStats = z.output<typeof historyStatsSchema>;
