/**
 * Crons (docs/api-v1.md "Crons"): a schedule that creates a root node with a fixed task each time
 * it fires. The expression and time zone are checked by the daemon (croner), whose 422 names
 * the field; here only their shape is.
 */
import { z } from 'zod';
import { idSchema, listQuerySchema, timestampSchema } from './common.ts';
import { nodeCreateBodySchema, nodeSchema, TITLE_MAX } from './nodes.ts';

export const CRON_STATES = ['active', 'paused'] as const;
export const CRON_MISSED = ['skip', 'run_once'] as const;
export const CRON_OVERLAP = ['skip', 'allow'] as const;

export const cronStateSchema = z.enum(CRON_STATES);
export const cronMissedSchema = z
  .enum(CRON_MISSED)
  .describe(
    "what a fire missed while the daemon was down does: 'skip' (none) or 'run_once' (one fire for the whole gap)",
  );

export const cronOverlapSchema = z
  .enum(CRON_OVERLAP)
  .describe(
    "a scheduled time that comes while the node of the last fire is still queued, running or waiting: 'skip' (no fire; a cron.skipped event says so) or 'allow' (fire anyway)",
  );

/** What each fire creates: a root node's create body (a cron's node has no parent). */
export const cronTaskSchema = nodeCreateBodySchema.omit({ parent_id: true });

export const cronSchema = z.object({
  id: idSchema('cron'),
  name: z.string(),
  schedule: z.string().describe('a cron expression: 5 fields, or 6 with seconds first'),
  timezone: z.string().describe('the IANA time zone the expression is read in'),
  // Open in an answer, as every answer object is: the create body may gain fields.
  task: z.object(cronTaskSchema.shape).describe('the create body of the node each fire makes'),
  state: cronStateSchema,
  missed: cronMissedSchema,
  overlap: cronOverlapSchema,
  next_run_at: timestampSchema.nullable().describe('the next scheduled fire; null while paused'),
  last_run_at: timestampSchema
    .nullable()
    .describe('the scheduled time of the last fire (the moment of a manual run); null if none'),
  last_node_id: idSchema('node').nullable().describe('the node the last fire created, if any'),
  fire_count: z.number().int().nonnegative().describe('fires so far, failed ones included'),
  app_id: z.string().nullable().describe('the app that created it; null = the owner'),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
/** The daemon's cron DTO as it is (snake_case), per the spec's resource map. */
export type Cron = z.output<typeof cronSchema>;

export const cronParamsSchema = z.object({ id: idSchema('cron') });

export const cronCreateBodySchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(TITLE_MAX)
    .optional()
    .describe("default: the task's title, else its first line"),
  schedule: z.string().min(1).max(256).describe('5 fields, or 6 with seconds first'),
  timezone: z.string().min(1).max(128).optional().describe("an IANA time zone; default 'UTC'"),
  missed: cronMissedSchema.optional().describe("default 'skip'"),
  overlap: cronOverlapSchema.optional().describe("default 'skip'"),
  task: cronTaskSchema,
});
export type CronCreateBody = z.output<typeof cronCreateBodySchema>;

export const cronListQuerySchema = listQuerySchema.extend({
  // A cursor is the last id of the page before: anything else would read as the end of the list.
  after: idSchema('cron').optional().describe('the next_cursor of the previous page'),
  state: cronStateSchema.optional(),
});
export type CronListQuery = z.output<typeof cronListQuerySchema>;

/** `crons.run`: the cron after the fire and the node it created. */
export const cronRunResultSchema = z.object({ cron: cronSchema, node: nodeSchema });
/** `{ cron, node }`: the cron after a manual fire and the root node it created. */
export type CronRunResult = z.output<typeof cronRunResultSchema>;

export const cronDeleteResultSchema = z.object({ id: idSchema('cron'), deleted: z.literal(true) });
export type CronDeleteResult = z.output<typeof cronDeleteResultSchema>;

/** The payload of a `cron.fired` event. */
export const cronFiredPayloadSchema = z.object({
  cron_id: idSchema('cron'),
  scheduled_at: timestampSchema.describe('the scheduled time it fired for (now, for a manual run)'),
  trigger: z
    .enum(['schedule', 'missed', 'manual'])
    .describe("'missed': the run_once fire for a time passed while the daemon was down"),
  node_id: idSchema('node').nullable(),
  error: z
    .object({ code: z.string(), message: z.string() })
    .nullable()
    .describe('why no node was created'),
});
