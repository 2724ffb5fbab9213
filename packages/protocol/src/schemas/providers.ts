/**
 * `providers` (SPEC, resource map): an app, or the owner, lists and calls the commands of the
 * installed plugins through the daemon, which authenticates each call as it does a node's.
 */
import { z } from 'zod';
import { nameSchema } from './common.ts';

/** `GET /v1/providers/tools` */
export const providerToolsQuerySchema = z.object({
  provider: nameSchema.optional().describe('only this provider (installed plugin) name'),
});
export type ProviderToolsQuery = z.output<typeof providerToolsQuerySchema>;

/** One command the caller's scopes cover. */
export const providerToolSchema = z.object({
  provider: nameSchema,
  group: z.string(),
  command: z.string(),
  name: z
    .string()
    .nullable()
    .describe(
      "the tool name a node's model calls it by (`<provider>_<group>_<command>`); null when agents are not offered it (the name would pass 64 characters)",
    ),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()).or(z.boolean()).describe('its input JSON Schema'),
  streaming: z.boolean().describe('answers a stream of items'),
  scope: z.string().describe('`<provider>:<group>`, the scope that gates it'),
});

/** An installed plugin's command the caller's scopes cover. */
export type ProviderTool = z.output<typeof providerToolSchema>;

export const providerToolsSchema = z.object({ data: z.array(providerToolSchema) });
export type ProviderToolList = z.output<typeof providerToolsSchema>;

/** `POST /v1/provider/call` */
export const providerCallBodySchema = z.strictObject({
  provider: nameSchema,
  group: nameSchema,
  command: nameSchema,
  input: z.record(z.string(), z.unknown()).describe("the command's input, a JSON object"),
  profile: nameSchema
    .optional()
    .describe(
      'whose env store holds a shared-token plugin\'s token (default "default"); unused otherwise',
    ),
});
export type ProviderCallBody = z.output<typeof providerCallBodySchema>;

export const providerCallResultSchema = z.object({
  provider: nameSchema,
  group: z.string(),
  command: z.string(),
  output: z.unknown().describe("the command's JSON result; null for a streaming command"),
  items: z.array(z.unknown()).optional().describe("a streaming command's items"),
  truncated: z
    .boolean()
    .optional()
    .describe(
      'a streaming command: true when the items stop short of the end (the size cap, the time limit, or a stream closed without `done`)',
    ),
});

/** `output` is the command's result; a streaming command answers `items` and `truncated`. */
export type ProviderCallResult = z.output<typeof providerCallResultSchema>;
