/**
 * Custom objects (docs/api-v1.md "Custom objects"): a declared catalog of events, a receiver
 * (a queue read over SSE, a URL that gets signed POSTs, or a host program that gets each event on
 * stdin) and a publish token shown once. Whether an event's `schema` compiles, and whether `data`
 * matches it, is the daemon's check; here only shapes are.
 */
import { z } from 'zod';
import {
  absolutePathSchema,
  idSchema,
  listQuerySchema,
  processText,
  queryInt,
  timestampSchema,
} from './common.ts';
import { jsonSchemaObject, TITLE_MAX } from './nodes.ts';
import { checkedAs } from './wire-form.ts';

export const OBJECT_EVENT_NAME = /^[a-z][a-z0-9_.-]{0,62}$/;
export const OBJECT_EVENTS_MAX = 100;
export const OBJECT_ARGV_MAX = 256;
export const OBJECT_DESCRIPTION_MAX = 2_000;
/** The most delivery ids one ack takes. */
export const OBJECT_ACK_MAX = 1_000;
export const PUBLISH_TOKEN_PREFIX = 'svc_pub_';
export const SIGNING_SECRET_PREFIX = 'whsec_';

export const RECEIVER_KINDS = ['queue', 'url', 'argv'] as const;
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

export const objectEventNameSchema = z
  .string()
  .regex(OBJECT_EVENT_NAME)
  .describe('an event name: a lowercase letter, then up to 62 of a-z, 0-9, _, ., -');

const descriptionSchema = z.string().max(OBJECT_DESCRIPTION_MAX);

export const objectEventDeclSchema = z.strictObject({
  description: descriptionSchema.optional(),
  schema: jsonSchemaObject
    .optional()
    .describe("a JSON Schema (2020-12) the event's data must match; it must compile"),
});

export const objectReceiverSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('queue').describe('read with GET …/deliveries (SSE), acknowledged with …/ack'),
  }),
  z.strictObject({
    kind: z.literal('url'),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      // fetch refuses a URL with credentials: every attempt would fail.
      .refine(withoutCredentials, 'must not hold a user name or password')
      .describe('an http(s) URL; each delivery is POSTed there, signed (Standard Webhooks)'),
  }),
  z.strictObject({
    kind: z.literal('argv'),
    argv: checkedAs(
      z
        .array(processText(32_768))
        .min(1)
        .max(OBJECT_ARGV_MAX)
        .refine((argv) => argv[0] !== '', 'the program (argv[0]) must not be empty')
        .describe('a program and its arguments, run without a shell; the delivery on stdin'),
      // Inside `not`, so `items` still judges the first one (beside `prefixItems` it would not).
      { not: { prefixItems: [{ const: '' }] } },
    ),
    cwd: absolutePathSchema
      .optional()
      .describe("the program's working directory; default the home directory of the daemon's user"),
  }),
]);
export type ObjectReceiver = z.output<typeof objectReceiverSchema>;

export const customObjectRegisterBodySchema = z.strictObject({
  name: z.string().min(1).max(TITLE_MAX),
  description: descriptionSchema.optional(),
  events: checkedAs(
    z
      .record(objectEventNameSchema, objectEventDeclSchema)
      .refine((events) => Object.keys(events).length > 0, 'declare at least one event')
      .refine(
        (events) => Object.keys(events).length <= OBJECT_EVENTS_MAX,
        `at most ${OBJECT_EVENTS_MAX} events`,
      )
      .describe('the event catalog: name → {description?, schema?}'),
    { minProperties: 1, maxProperties: OBJECT_EVENTS_MAX },
  ),
  receiver: objectReceiverSchema,
});
export type CustomObjectRegisterBody = z.output<typeof customObjectRegisterBodySchema>;

export const customObjectSchema = z.object({
  id: idSchema('object'),
  name: z.string(),
  description: z.string().nullable(),
  events: z.record(
    z.string(),
    z.object({ description: z.string().nullable(), schema: jsonSchemaObject.nullable() }),
  ),
  receiver: objectReceiverSchema,
  app_id: z.string().nullable().describe('the app that owns it; null = the owner'),
  pending_deliveries: z
    .number()
    .int()
    .nonnegative()
    .describe('deliveries not yet acknowledged (queue) or not yet accepted (url, argv)'),
  created_at: timestampSchema,
});
export type CustomObject = z.output<typeof customObjectSchema>;

/** `register`'s answer: the object, and its secrets, shown this once. */
export const customObjectRegisterResultSchema = customObjectSchema.extend({
  publish_token: z
    .string()
    .describe(`'${PUBLISH_TOKEN_PREFIX}…': publishes to this object and does nothing else`),
  signing_secret: z
    .string()
    .optional()
    .describe(
      `url receivers: '${SIGNING_SECRET_PREFIX}' + base64 key of the webhook-signature HMAC`,
    ),
});
/** The object and, this once, its `publish_token` (and a url receiver's `signing_secret`). */
export type CustomObjectRegistered = z.output<typeof customObjectRegisterResultSchema>;

export const customObjectParamsSchema = z.object({ id: idSchema('object') });

export const customObjectListQuerySchema = listQuerySchema.extend({
  after: idSchema('object').optional().describe('the next_cursor of the previous page'),
});

export const customObjectPublishBodySchema = z.strictObject({
  // Any string: a name outside the catalog is answered 422 naming `event`, as an unknown one.
  event: z.string().min(1).max(200),
  data: z.unknown().optional().describe("any JSON (default null); matches the event's schema"),
});
export type CustomObjectPublishBody = z.output<typeof customObjectPublishBodySchema>;

export const customObjectPublishResultSchema = z.object({
  delivery_id: idSchema('delivery'),
  seq: z.number().int().positive().describe('the seq of the object.event in the event log'),
});
export type CustomObjectPublishResult = z.output<typeof customObjectPublishResultSchema>;

export const customObjectAckBodySchema = z.strictObject({
  delivery_ids: z.array(idSchema('delivery')).min(1).max(OBJECT_ACK_MAX),
});

export const customObjectAckResultSchema = z.object({
  acked: z
    .number()
    .int()
    .nonnegative()
    .describe('how many of the ids are acknowledged now (those acknowledged before included)'),
  not_found: z
    .array(z.string())
    .describe('ids that are no delivery of this object (or were dropped with it)'),
});
export type CustomObjectAckResult = z.output<typeof customObjectAckResultSchema>;

export const customObjectReceiveQuerySchema = z.object({
  after: queryInt(0, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      'also send acknowledged deliveries after this seq (Last-Event-ID wins); unacknowledged ones come whatever it says',
    ),
});

export const customObjectDeleteResultSchema = z.object({
  id: idSchema('object'),
  deleted: z.literal(true),
});
export type CustomObjectDeleteResult = z.output<typeof customObjectDeleteResultSchema>;

/** The payload of an `object.event` event: one published event and its delivery. */
export const objectEventPayloadSchema = z.object({
  object_id: idSchema('object'),
  event: z.string(),
  data: z.unknown(),
  delivery_id: idSchema('delivery'),
});

/**
 * A delivery as every receiver gets it (the SSE `data:`, the POSTed body, argv's stdin): the
 * `object.event` row of the event log.
 */
export const objectDeliverySchema = z.object({
  seq: z.number().int().positive(),
  kind: z.literal('object.event'),
  subject_id: idSchema('object'),
  payload: objectEventPayloadSchema,
  created_at: timestampSchema,
});
/**
 * One delivery: the `object.event` of the event log. Acknowledge it with
 * `ack(ref, [delivery.payload.delivery_id])`.
 */
export type ObjectDelivery = z.output<typeof objectDeliverySchema>;

function withoutCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  } catch {
    return true; // not a URL at all: the url check says so
  }
}
