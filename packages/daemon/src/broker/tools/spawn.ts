/** `spawn`: creates a child node under this one; it runs on its own broker. */
import { budgetsInputSchema, modelChoiceSchema, nameSchema } from '@svc/protocol';
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const spawnTool = defineTool({
  name: 'spawn',
  description:
    'Start a child agent with its own task. It runs in parallel; use wait to collect its ' +
    'outcome. Returns the child node id. The child runs with your profile and model unless ' +
    'you name others.',
  input: z.object({
    task: z.string().min(1).describe("the child's task, its first message"),
    title: z.string().min(1).max(200).optional(),
    profile: nameSchema
      .optional()
      .describe(
        "the child's profile (its system prompt, tools, env, model); omitted: yours. A named profile brings its own model.",
      ),
    model: modelChoiceSchema
      .optional()
      .describe(
        "the child's model, {provider, model}; omitted: yours (or the named profile's). A 'scripted' child needs its own script.",
      ),
    scopes: z
      .array(z.string())
      .optional()
      .describe("the child's scope list; omitted: yours. It cannot exceed yours."),
    budgets: budgetsInputSchema.optional(),
  }),
  async run(spec, { port, idempotencyKey }) {
    const child = await port.spawnChild(spec, idempotencyKey);
    return {
      output: { node_id: child.id, state: child.state, profile: child.profile, model: child.model },
    };
  },
});
