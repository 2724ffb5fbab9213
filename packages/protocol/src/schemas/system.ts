/** Liveness, health, status, readiness and shutdown of the daemon. */
import { z } from 'zod';
import { absolutePathSchema, okSchema, timestampSchema } from './common.ts';

/** `GET /healthz` (liveness) and `POST /v1/shutdown`. */
export { okSchema as healthzResponseSchema, okSchema as shutdownResponseSchema };

export const healthResponseSchema = z.object({ ok: z.literal(true), version: z.string() });

export const tcpListenerSchema = z.object({
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  base_url: z.url(),
});

export const statusResponseSchema = z.object({
  status: z.literal('ready'),
  version: z.string(),
  pid: z.number().int().positive(),
  started_at: timestampSchema,
  uptime_s: z.number().nonnegative(),
  home: absolutePathSchema,
  socket_path: absolutePathSchema,
  tcp: tcpListenerSchema.nullable().describe('null while the TCP listener is off'),
  brokers: z
    .object({
      concurrency: z.number().int().positive().describe('brokers that may run at once'),
      active: z.number().int().nonnegative().describe('brokers holding a node now'),
      queued: z.number().int().nonnegative().describe('nodes waiting for a broker slot'),
    })
    .describe('the broker slots (`svc daemon start --brokers N`)'),
  viewer: z
    .object({
      url: z
        .url()
        .nullable()
        .describe("the viewer's page on the TCP listener; null while it is off"),
      built: z.boolean().describe('whether the daemon has a viewer build to serve'),
    })
    .describe('where the web viewer is (`svc sys connect --open` logs in to it)'),
});

export const providerReadinessSchema = z.object({
  provider: z.string(),
  ready: z.boolean(),
  reason: z.string().optional().describe('why the provider is not ready'),
});

export const readinessResponseSchema = z.object({ providers: z.array(providerReadinessSchema) });

/** The OpenAPI document itself: an object this schema does not describe further. */
export const openApiResponseSchema = z.record(z.string(), z.unknown());
