/**
 * `POST /v1/llm` (scope `svc:llm`): one model call the daemon makes on the caller's behalf, with
 * the daemon's stored credentials, so an app never holds a provider key. No tools: an agent loop
 * with tools is a node (or a run).
 */
import { z } from 'zod';
import { nameSchema } from './common.ts';
import { modelChoiceSchema, modelRefSchema } from './models.ts';
import { jsonSchemaObject, turnUsageSchema } from './nodes.ts';

export const llmMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string().max(1_000_000),
});

export const llmBodySchema = z.strictObject({
  model: modelChoiceSchema
    .optional()
    .describe("default: the profile's model, then the configured default"),
  profile: nameSchema.optional().describe('use its model and system prompt'),
  system: z.string().max(200_000).optional().describe("replaces the profile's system prompt"),
  messages: z.array(llmMessageSchema).min(1).max(10_000),
  max_output_tokens: z.number().int().min(1).max(1_000_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  output_schema: jsonSchemaObject
    .optional()
    .describe(
      'ask for JSON matching it; the answer carries it parsed (422 when it does not match)',
    ),
});
export type LlmBody = z.output<typeof llmBodySchema>;

export const llmResponseSchema = z.object({
  model: modelRefSchema,
  text: z.string(),
  parsed: z.unknown().describe('the text parsed by output_schema; null without one'),
  usage: turnUsageSchema,
  cost_usd: z.number().nonnegative().nullable().describe('null when the price is unknown'),
  finish_reason: z.string(),
});
export type LlmResponse = z.output<typeof llmResponseSchema>;
