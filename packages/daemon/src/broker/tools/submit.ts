/**
 * `submit`: the node's outcome. The daemon checks it (against the node's output schema, when it
 * has one); a refusal comes back to the model as a tool error it can correct.
 */
import { z } from 'zod';
import { SUBMITTED, SUBMITTED_REASON } from '../../ports.ts';
import { defineTool } from './tool.ts';

export const submitTool = defineTool({
  name: 'submit',
  description:
    'Submit the outcome of your task: a result (any JSON value), a summary, or both. ' +
    'This ends your work.',
  input: z
    .object({
      result: z.unknown().optional().describe('the outcome as any JSON value'),
      summary: z.string().optional().describe('the outcome in words'),
    })
    .refine((b) => b.result !== undefined || b.summary !== undefined, {
      message: 'submit a result, a summary, or both',
    }),
  // With its turn when it is the turn's last call (`inlineResults`): the turn, its result and
  // the outcome in one commit, one request.
  inline: (submission) => ({ output: SUBMITTED, submit: submission }),
  async run(submission, { port }) {
    await port.submitResult(submission);
    return {
      output: SUBMITTED,
      stop: { exit: { kind: 'submitted', reason: SUBMITTED_REASON } },
    };
  },
});
