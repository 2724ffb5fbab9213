/** The daemon's event log as SSE (`GET /v1/events`). */
import { z } from 'zod';
import { queryBool, queryInt, timestampSchema } from './common.ts';

/**
 * Every kind of event the daemon records (docs/api-v1.md and docs/nodes.md give the payloads).
 * `/v1` only grows: clients must accept kinds they do not know.
 */
export const EVENT_KINDS = [
  'canvas.pruned',
  'cron.created',
  'cron.deleted',
  'cron.fired',
  'cron.paused',
  'cron.rescheduled',
  'cron.resumed',
  'cron.skipped',
  'daemon.started',
  'daemon.stopping',
  'human.request',
  'listener.tcp',
  'memory.document',
  'model_auth.installed',
  'model_auth.removed',
  'model_config.updated',
  'node.fault',
  'node.job',
  'node.mail',
  'node.outcome',
  'node.report',
  'node.state',
  'node.tool',
  'node.turn',
  'node.updated',
  'object.delivery',
  'object.event',
  'object.registered',
  'object.unregistered',
  'plugin.installed',
  'plugin.removed',
  'plugin.updated',
  'profile.created',
  'profile.env.deleted',
  'profile.env.set',
  'profile.updated',
  'run.deleted',
  'run.outcome',
  'run.question',
  'run.renamed',
  'run.started',
  'run.state',
  'share.created',
  'share.deleted',
  'token.created',
  'token.revoked',
  'upload.created',
  'upload.deleted',
  'viewer.session.created',
  'viewer.session.revoked',
] as const;

/** One event; also the `data:` of its SSE message (`id:` = seq, `event:` = kind). */
export const eventSchema = z.object({
  seq: z.number().int().positive(),
  kind: z.string(),
  subject_id: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  created_at: timestampSchema,
});
/** One event of the daemon's log: `{ seq, kind, subject_id, payload, created_at }`. */
export type SvcEvent = z.output<typeof eventSchema>;

export const eventsQuerySchema = z.object({
  after: queryInt(0, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('resume after this seq (Last-Event-ID wins when both are sent)'),
  kinds: z
    .string()
    .regex(/^[a-z0-9._-]+(,[a-z0-9._-]+)*$/)
    .max(2000)
    .optional()
    .describe('comma-separated event kinds to keep'),
  follow: queryBool
    .optional()
    .describe(
      'false: send the backlog (events up to the latest at the request) and end the stream',
    ),
});
