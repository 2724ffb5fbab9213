/** The daemon's event log as SSE (`GET /v1/events`). */
import { z } from 'zod';
import { queryBool, queryInt, timestampSchema } from './common.ts';

/** Event kinds of this stage; later stages add more, so clients must accept unknown kinds. */
export const EVENT_KINDS = [
  'daemon.started',
  'daemon.stopping',
  'token.created',
  'token.revoked',
  'listener.tcp',
] as const;

/** One event; also the `data:` of its SSE message (`id:` = seq, `event:` = kind). */
export const eventSchema = z.object({
  seq: z.number().int().positive(),
  kind: z.string(),
  subject_id: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  created_at: timestampSchema,
});

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
