/**
 * Questions (docs/api-v1.md "Questions"): the app-facing handle (`q_…`) of a human request a node
 * of one of the app's runs asked with `ask_human`. Its state and answer are the request's own:
 * answering a question answers that request, through the inbox's checks and states.
 */
import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import {
  humanKindSchema,
  humanRequestStateSchema,
  humanRespondBodySchema,
  humanResponseSchema,
} from './human.ts';
import { jsonSchemaObject } from './nodes.ts';

export const questionSchema = z.object({
  id: idSchema('question'),
  run_id: idSchema('run'),
  node_id: idSchema('node').describe('the node of the run that asked'),
  request_id: idSchema('human_request').describe('the human request it is the handle of'),
  kind: humanKindSchema,
  title: z.string(),
  body: z.string().describe('markdown'),
  options: z.array(z.string()).describe('the choices offered; may be empty'),
  response_schema: jsonSchemaObject.nullable(),
  state: humanRequestStateSchema.describe("the request's state"),
  answer: humanResponseSchema.nullable().describe('the response, once answered'),
  expires_at: timestampSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
/** A question a node of one of your runs asked: the human request's content, state and answer. */
export type Question = z.output<typeof questionSchema>;

export const questionParamsSchema = z.object({ id: idSchema('question') });

/** The answer: what `human.requests.respond` takes, checked the same way. */
export const questionAnswerBodySchema = humanRespondBodySchema;
export type QuestionAnswerBody = z.output<typeof questionAnswerBodySchema>;

/** The payload of a `run.question` event (subject = the run id). */
export const runQuestionEventSchema = z.object({
  run_id: idSchema('run'),
  question_id: idSchema('question'),
  node_id: idSchema('node'),
  request_id: idSchema('human_request'),
  kind: humanKindSchema,
  title: z.string(),
});
