/** `spawn`: creates a child node under this one; it runs on its own broker. */
import { budgetsInputSchema } from '@svc/protocol';
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const spawnTool = defineTool({
  name: 'spawn',
  description:
    'Start a child agent with its own task. It runs in parallel; use wait to collect its ' +
    'outcome. Returns the child node id.',
  input: z.object({
    task: z.string().min(1).describe("the child's task, its first message"),
    title: z.string().min(1).max(200).optional(),
    scopes: z
      .array(z.string())
      .optional()
      .describe("the child's scope list; omitted: yours. It cannot exceed yours."),
    budgets: budgetsInputSchema.optional(),
  }),
  async run(spec, { port, idempotencyKey }) {
    const child = await port.spawnChild(spec, idempotencyKey);
    return { output: { node_id: child.id, state: child.state } };
  },
});
