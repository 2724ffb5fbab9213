/**
 * Human requests and the inbox (docs/api-v1.md "Human requests and the inbox"). A request
 * (`hr_…`) is the asker's handle; its ticket (`tk_…`) is the item in the person's inbox. A request
 * has one current ticket; replacing its content supersedes that ticket with a new one. Requests
 * are snake_case like every other DTO; inbox answers follow SPEC's resource map note 4: a ticket
 * (and a ticket's response) is camelCase all the way down, the list envelope around it keeps its
 * snake_case `has_more` and `next_cursor`.
 */
import { z } from 'zod';
import { idSchema, listQuerySchema, timestampSchema } from './common.ts';
import { jsonSchemaObject, TITLE_MAX } from './nodes.ts';
import { checkedAs } from './wire-form.ts';

export const HUMAN_KINDS = ['question', 'approval', 'review'] as const;
export const HUMAN_REQUEST_STATES = [
  'open',
  'in_progress',
  'answered',
  'dismissed',
  'cancelled',
  'expired',
] as const;
export const TICKET_STATES = [...HUMAN_REQUEST_STATES, 'superseded'] as const;
/** A ticket still waiting for the person: the inbox lists these. */
export const OPEN_TICKET_STATES = ['open', 'in_progress'] as const;
/** A ticket that ended, one way or another: the inbox history lists these. */
export const CLOSED_TICKET_STATES = [
  'answered',
  'dismissed',
  'cancelled',
  'superseded',
  'expired',
] as const;
/** An approval's choices, and its options when the asker gives none. */
export const APPROVAL_OPTIONS = ['approve', 'reject'] as const;

export const HUMAN_BODY_MAX = 100_000;
export const HUMAN_OPTIONS_MAX = 20;
export const HUMAN_TEXT_MAX = 100_000;
/** The longest an expiry may be: a year. */
export const HUMAN_EXPIRES_MAX_S = 31_536_000;

export const humanKindSchema = z.enum(HUMAN_KINDS);
export const humanRequestStateSchema = z.enum(HUMAN_REQUEST_STATES);
export const ticketStateSchema = z.enum(TICKET_STATES);

const optionSchema = z.string().min(1).max(200);

/** What the person answered. */
export const humanResponseSchema = z.object({
  text: z.string().nullable(),
  choice: z.string().nullable().describe('one of the options, when the request has options'),
  data: z.unknown().describe('JSON matching response_schema; null when none was given'),
  responded_at: timestampSchema,
});
export type HumanResponse = z.output<typeof humanResponseSchema>;

const contentFields = {
  kind: humanKindSchema,
  title: z.string(),
  body: z.string().describe('markdown'),
  options: z.array(z.string()).describe('the choices offered; may be empty'),
  response_schema: jsonSchemaObject.nullable(),
};

export const humanRequestSchema = z.object({
  id: idSchema('human_request'),
  ticket_id: idSchema('ticket').describe('the current ticket in the inbox'),
  ...contentFields,
  state: humanRequestStateSchema,
  response: humanResponseSchema.nullable(),
  node_id: idSchema('node')
    .nullable()
    .describe('the node that asked; null for the owner or an app'),
  app_id: z
    .string()
    .nullable()
    .describe('the app that asked (or whose node did); null = the owner'),
  expires_at: timestampSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
/** The daemon's human request DTO (snake_case, as every DTO of the daemon). */
export type HumanRequest = z.output<typeof humanRequestSchema>;

/** What the person answered, as the inbox answers it (camelCase: SPEC resource map note 4). */
export const inboxResponseSchema = z.object({
  text: z.string().nullable(),
  choice: z.string().nullable().describe('one of the options, when the ticket has options'),
  data: z.unknown().describe('JSON matching responseSchema; null when none was given'),
  respondedAt: timestampSchema,
});
/** A ticket's response as the inbox answers it (`respondedAt`). */
export type InboxResponse = z.output<typeof inboxResponseSchema>;

/** An inbox item: camelCase all the way down (SPEC resource map note 4). */
export const ticketSchema = z.object({
  id: idSchema('ticket'),
  requestId: idSchema('human_request'),
  kind: humanKindSchema,
  title: z.string(),
  body: z.string().describe('markdown'),
  options: z.array(z.string()).describe('the choices offered; may be empty'),
  responseSchema: jsonSchemaObject.nullable(),
  state: ticketStateSchema,
  progressNote: z.string().nullable().describe('what the person said while working on it'),
  asker: z.object({ nodeId: z.string().nullable(), appId: z.string().nullable() }),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
/**
 * An inbox item: camelCase all the way down (`requestId`, `asker.nodeId`, `createdAt`), while a
 * list's envelope keeps `has_more` and `next_cursor` (SPEC resource map note 4).
 */
export type Ticket = z.output<typeof ticketSchema>;

/** `POST /v1/human/requests`, and the whole new content of `PUT /v1/human/requests/{id}`. */
export const humanRequestCreateBodySchema = z.strictObject({
  kind: humanKindSchema.optional().describe("default 'question'"),
  title: z.string().min(1).max(TITLE_MAX),
  body: z.string().max(HUMAN_BODY_MAX).optional().describe("markdown; default ''"),
  // Distinct: the service refuses a repeated option (422), as a choice could not tell them apart.
  options: checkedAs(z.array(optionSchema).max(HUMAN_OPTIONS_MAX), { uniqueItems: true })
    .optional()
    .describe("choices; an approval's are approve and reject"),
  response_schema: jsonSchemaObject
    .optional()
    .describe('a JSON Schema the answer data must match; the daemon checks that it compiles'),
  expires_in_s: z
    .number()
    .int()
    .min(1)
    .max(HUMAN_EXPIRES_MAX_S)
    .optional()
    .describe('expire unanswered after this many seconds; default never'),
});
export type HumanRequestCreateBody = z.output<typeof humanRequestCreateBodySchema>;

export const humanRespondBodySchema = z.strictObject({
  text: z.string().min(1).max(HUMAN_TEXT_MAX).optional(),
  choice: optionSchema.optional(),
  data: z
    .unknown()
    .optional()
    .describe('any JSON; required when the request has a response_schema'),
});
export type HumanRespondBody = z.output<typeof humanRespondBodySchema>;

export const humanReasonBodySchema = z.strictObject({
  reason: z.string().min(1).max(2000).optional(),
});
export type HumanReasonBody = z.output<typeof humanReasonBodySchema>;

export const ticketProgressBodySchema = z.strictObject({
  note: z.string().min(1).max(2000).optional(),
});
export type TicketProgressBody = z.output<typeof ticketProgressBodySchema>;

export const humanRequestParamsSchema = z.object({ id: idSchema('human_request') });
export const ticketParamsSchema = z.object({ ticket_id: idSchema('ticket') });

export const inboxListQuerySchema = listQuerySchema.extend({
  after: idSchema('ticket').optional().describe('the next_cursor of the previous page'),
  state: z.enum(OPEN_TICKET_STATES).optional(),
});
export type InboxListQuery = z.output<typeof inboxListQuerySchema>;

export const inboxHistoryQuerySchema = listQuerySchema.extend({
  after: idSchema('ticket').optional().describe('the next_cursor of the previous page'),
  state: z.enum(CLOSED_TICKET_STATES).optional(),
});
export type InboxHistoryQuery = z.output<typeof inboxHistoryQuerySchema>;

/** The payload of a `human.request` event. */
export const humanRequestEventSchema = z.object({
  request_id: idSchema('human_request'),
  ticket_id: idSchema('ticket'),
  state: humanRequestStateSchema,
  action: z.enum([
    'created',
    'replaced',
    'progress',
    'answered',
    'dismissed',
    'declined',
    'cancelled',
    'expired',
  ]),
  superseded_ticket_id: idSchema('ticket').optional().describe('on replace: the old ticket'),
  reason: z.string().optional().describe('on dismiss, decline or cancel, when given'),
  note: z.string().optional().describe('on progress, when given'),
});
