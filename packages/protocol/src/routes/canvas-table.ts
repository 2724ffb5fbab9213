/**
 * The `canvas` and `canvas.history` routes (docs/api-v1.md "Canvas"). Every read takes any token
 * and shows only the nodes the caller may see (the owner all; an app its own nodes and their
 * trees; a node its tree). Pruning is the owner's. `canvas.dashboard` has no route: the client
 * composes it from `nodes.list` and `status.get`. Reads see nodes as `nodes.list` does
 * (`tree-read`); attention, a list of what to act on, as writes do (`tree`), its crons by the
 * crons' own rule.
 */
import {
  attentionCountsSchema,
  attentionItemSchema,
  attentionQuerySchema,
  canvasPruneBodySchema,
  canvasPruneResultSchema,
  canvasSnapshotQuerySchema,
  canvasSnapshotSchema,
  historyGrepQuerySchema,
  historyGrepResultSchema,
  historyReadQuerySchema,
  historyReadResultSchema,
  historySearchQuerySchema,
  historySearchResultSchema,
  historyStatsQuerySchema,
  historyStatsSchema,
  rosterEntrySchema,
  rosterQuerySchema,
} from '../schemas/canvas.ts';
import { listOf } from '../schemas/common.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const canvasRoutes = [
  {
    id: 'canvas.attention',
    method: 'GET',
    path: '/v1/canvas/attention',
    auth: TOKEN,
    summary:
      'What needs the person now, newest first: open inbox tickets, failed nodes, nodes stuck on a human, nodes parked at a budget, crons whose last fire failed',
    query: attentionQuerySchema,
    response: listOf(attentionItemSchema),
    page: { cursor: null },
    errors: ['validation_failed'],
    visibility: 'tree',
  },
  {
    id: 'canvas.attentionCounts',
    method: 'GET',
    path: '/v1/canvas/attention/counts',
    auth: TOKEN,
    summary: 'How many attention items there are, by kind',
    response: attentionCountsSchema,
    visibility: 'tree',
  },
  {
    id: 'canvas.snapshot',
    method: 'GET',
    path: '/v1/canvas/snapshot',
    auth: TOKEN,
    summary:
      'The visible nodes as of one event seq, read in one transaction: stream events after that seq to follow on with no gap',
    query: canvasSnapshotQuerySchema,
    response: canvasSnapshotSchema,
    errors: ['validation_failed', 'not_found'],
    visibility: 'tree-read',
  },
  {
    id: 'canvas.roster',
    method: 'GET',
    path: '/v1/canvas/roster',
    auth: TOKEN,
    summary: 'The live agents (queued, running, waiting) with their broker, usage and current wait',
    query: rosterQuerySchema,
    response: listOf(rosterEntrySchema),
    errors: ['validation_failed'],
    page: { cursor: 'node_id' },
    visibility: 'tree-read',
  },
  {
    id: 'canvas.prune',
    method: 'POST',
    path: '/v1/canvas/prune',
    auth: { kind: 'owner' },
    summary:
      'Remove root trees whose every node ended long enough ago, with their turns and worktrees (the event log stays)',
    body: canvasPruneBodySchema,
    response: canvasPruneResultSchema,
  },
  {
    id: 'canvas.history.search',
    method: 'GET',
    path: '/v1/canvas/history/search',
    auth: TOKEN,
    summary: 'Full-text search over the recorded turns (messages, answers, tool calls), best first',
    query: historySearchQuerySchema,
    response: historySearchResultSchema,
    page: { cursor: null },
    errors: ['validation_failed', 'not_found'],
    visibility: 'tree-read',
  },
  {
    id: 'canvas.history.grep',
    method: 'GET',
    path: '/v1/canvas/history/grep',
    auth: TOKEN,
    summary:
      'Lines of the recorded turns matching a regular expression, newest first, bounded in time and output',
    query: historyGrepQuerySchema,
    response: historyGrepResultSchema,
    errors: ['validation_failed', 'not_found', 'rate_limited'],
    visibility: 'tree-read',
  },
  {
    id: 'canvas.history.read',
    method: 'GET',
    path: '/v1/canvas/history/read',
    auth: TOKEN,
    summary: "A node's transcript as text, turn by turn",
    query: historyReadQuerySchema,
    response: historyReadResultSchema,
    page: { cursor: null },
    errors: ['validation_failed', 'not_found'],
    visibility: 'tree-read',
  },
  {
    id: 'canvas.history.stats',
    method: 'GET',
    path: '/v1/canvas/history/stats',
    auth: TOKEN,
    summary: 'Turns, tokens and cost by profile, model or day, and nodes by state',
    query: historyStatsQuerySchema,
    response: historyStatsSchema,
    errors: ['validation_failed'],
    visibility: 'tree-read',
  },
] as const satisfies readonly RouteDef[];
