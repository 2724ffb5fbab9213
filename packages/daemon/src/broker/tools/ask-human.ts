/**
 * `ask_human`: opens a human request in the person's inbox and parks the node on it. The answer
 * (or its dismissal, cancellation or expiry) arrives as mail, which wakes the node: the model
 * reads it at its next turn. The request is idempotent by the call's key, so a relaunch that
 * runs the call again gets the same request, not a second one.
 */
import { HUMAN_KINDS, jsonSchemaObject } from '@svc/protocol';
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const askHumanTool = defineTool({
  name: 'ask_human',
  description:
    'Ask the person a question, for an approval, or for a review. You stop working until they ' +
    'answer; the answer arrives as a message (JSON with choice, text and data). Give options ' +
    'to offer choices (an approval offers approve and reject), or a response_schema for ' +
    'structured data.',
  input: z.object({
    title: z.string().min(1).max(200).describe('one line: what you need'),
    body: z.string().max(100_000).describe('markdown: the context the person needs to answer'),
    kind: z.enum(HUMAN_KINDS).optional().describe("default 'question'"),
    options: z.array(z.string().min(1).max(200)).max(20).optional(),
    response_schema: jsonSchemaObject.optional(),
  }),
  async run(ask, { port, idempotencyKey }) {
    const request = await port.askHuman(ask, idempotencyKey);
    return {
      output: {
        request_id: request.id,
        state: request.state,
        note: 'waiting for the answer; it arrives as a message',
      },
      stop: {
        exit: { kind: 'waiting', reason: `waiting for the answer to human request ${request.id}` },
        waitHuman: request.id,
      },
    };
  },
});
