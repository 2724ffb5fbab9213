/** Liveness, health, status, readiness and shutdown of the daemon. */
import { z } from 'zod';
import { absolutePathSchema, okSchema, timestampSchema } from './common.ts';
import { networkPolicySchema } from './network.ts';

/** `GET /healthz` (liveness) and `POST /v1/shutdown`. */
export { okSchema as healthzResponseSchema, okSchema as shutdownResponseSchema };
/** `GET /healthz`: `{ ok: true }`. */
export type Liveness = z.output<typeof okSchema>;

export const healthResponseSchema = z.object({ ok: z.literal(true), version: z.string() });
export type HealthStatus = z.output<typeof healthResponseSchema>;

export const tcpListenerSchema = z.object({
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  base_url: z.url(),
});

/**
 * Confinement of the commands of nodes and scoped tokens (docs/security.md, "The sandbox"), shown
 * as model readiness is: whether it is on, whether this host can make it, and if not why and how
 * to fix it.
 */
export const sandboxStatusSchema = z.object({
  mode: z
    .enum(['on', 'off'])
    .describe('off: started with --sandbox off; such commands run unconfined'),
  ready: z.boolean().describe('this host can make the sandbox (bubblewrap works here)'),
  tool: z.string().nullable().describe('the sandbox tool and version, e.g. "bubblewrap 0.8.0"'),
  reason: z.string().nullable().describe('why commands are refused or unconfined'),
  fix: z.string().nullable().describe('what to do about it'),
  network: networkPolicySchema.describe(
    "a confined command's network unless its profile says more",
  ),
  limits: z.object({
    pids: z.number().int().nullable().describe('processes one command may hold; null: unbounded'),
    memory_bytes: z.number().int().nullable().describe("one command's memory; null: unbounded"),
    by: z.enum(['cgroup', 'rlimit']).nullable(),
  }),
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
  sandbox: sandboxStatusSchema,
});
export type SystemStatus = z.output<typeof statusResponseSchema>;

export const providerReadinessSchema = z.object({
  provider: z.string(),
  ready: z.boolean(),
  reason: z.string().optional().describe('why the provider is not ready'),
});

export const readinessResponseSchema = z.object({ providers: z.array(providerReadinessSchema) });
export type ModelAuthReadiness = z.output<typeof readinessResponseSchema>;

/** The OpenAPI document itself: an object this schema does not describe further. */
export const openApiResponseSchema = z.record(z.string(), z.unknown());
