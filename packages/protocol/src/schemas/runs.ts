/**
 * Runs, the application-facing API: a run is an app's handle on a root node it started. Its
 * state, usage and outcome are its root's (usage summed over the whole tree); its trace and
 * events cover the whole tree.
 */
import { z } from 'zod';
import { idSchema, listQuerySchema, nameSchema, timestampSchema } from './common.ts';
import { modelRefSchema } from './models.ts';
import {
  budgetsSchema,
  messageBodySchema,
  nodeCreateBodySchema,
  nodeEventsQuerySchema,
  nodeParseBodySchema,
  nodeStateListQuery,
  nodeStateSchema,
  nodeStreamQuerySchema,
  outcomeSchema,
  TITLE_MAX,
  usageSchema,
  waitingOnSchema,
} from './nodes.ts';

export const runSchema = z.object({
  id: idSchema('run'),
  app_id: z.string().nullable().describe('the app that started it; null = the owner'),
  node_id: idSchema('node').describe('its root node'),
  title: z.string(),
  state: nodeStateSchema.describe("its root node's state"),
  state_reason: z.string().nullable(),
  waiting_on: waitingOnSchema.nullable(),
  profile: z.string(),
  model: modelRefSchema,
  scopes: z.array(z.string()).nullable(),
  budgets: budgetsSchema,
  usage: usageSchema.describe('summed over every node of its tree'),
  outcome: outcomeSchema.nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  finished_at: timestampSchema.nullable(),
});
/** An app's handle on a root node it started: the root's state and outcome, the tree's usage. */
export type Run = z.output<typeof runSchema>;

export const runParamsSchema = z.object({ id: idSchema('run') });

/** `POST /v1/runs`: a root node's create body (a run has no parent). */
export const runStartBodySchema = nodeCreateBodySchema.omit({ parent_id: true });
export type RunStartBody = z.output<typeof runStartBodySchema>;

/** `POST /v1/runs/parse`: start, wait, and answer the result parsed by `output_schema`. */
export const runParseBodySchema = nodeParseBodySchema.omit({ parent_id: true });
export type RunParseBody = z.output<typeof runParseBodySchema>;

/** `runs.list`: the calling app's own runs (the owner's own for the owner token). */
export const runListQuerySchema = listQuerySchema.extend({
  // A cursor is the last id of the page before: anything else would read as the end of the list.
  after: idSchema('run').optional().describe('the next_cursor of the previous page'),
  state: nodeStateListQuery.optional(),
});
export type RunListQuery = z.output<typeof runListQuerySchema>;

/** `runs.listAll` (owner): every app's runs, or one app's. */
export const runListAllQuerySchema = runListQuerySchema.extend({
  app_id: nameSchema.optional().describe('only this app'),
});
export type RunListAllQuery = z.output<typeof runListAllQuerySchema>;

export const runRenameBodySchema = z.strictObject({ title: z.string().min(1).max(TITLE_MAX) });
export type RunRenameBody = z.output<typeof runRenameBodySchema>;

/** `runs.reply`: answers the run while it waits; `runs.message` is mail at any time. */
export { messageBodySchema as runMessageBodySchema, messageBodySchema as runReplyBodySchema };

export const runWaitResultSchema = z.object({ final: z.boolean(), run: runSchema });
export type RunWaitResult = z.output<typeof runWaitResultSchema>;

export const runParseResultSchema = z.object({
  final: z.boolean(),
  run: runSchema,
  parsed: z.unknown().describe("the result, matching output_schema; null unless final and 'done'"),
});
export type RunParseResult = z.output<typeof runParseResultSchema>;

export const runDeleteResultSchema = z.object({ id: idSchema('run'), deleted: z.literal(true) });
export type RunDeleteResult = z.output<typeof runDeleteResultSchema>;

export const runEventsQuerySchema = nodeEventsQuerySchema.omit({ subtree: true });
export type RunEventsQuery = z.output<typeof runEventsQuerySchema>;
export const runStreamQuerySchema = nodeStreamQuerySchema.omit({ subtree: true });
