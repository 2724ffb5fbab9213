/**
 * `wait`: the children's outcomes once they have ended. Until then the node parks (the daemon
 * does so when it answers "not ready") and this call is not recorded, so the relaunched broker
 * runs it again and then gets the outcomes.
 */
import { idSchema } from '@svc/protocol';
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const waitTool = defineTool({
  name: 'wait',
  description:
    'Wait until children have ended and get their outcomes (state, result, summary, error). ' +
    'Omit node_ids to wait for all your unfinished children; mode any returns once one ends.',
  input: z.object({
    node_ids: z.array(idSchema('node')).min(1).optional(),
    mode: z.enum(['all', 'any']).optional().describe('default all'),
  }),
  async run({ node_ids, mode }, { port }) {
    const answer = await port.waitChildren(node_ids ?? 'all', mode ?? 'all');
    if (answer.ready) return { output: { children: answer.children } };
    return {
      defer: { kind: 'waiting', reason: `waiting for children: ${answer.pending.join(', ')}` },
    };
  },
});
