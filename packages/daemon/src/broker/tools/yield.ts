/** `yield`: the node gives up its turn and parks until a message arrives. */
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const yieldTool = defineTool({
  name: 'yield',
  description:
    'Stop working until someone sends you a message (you have nothing to do until then). ' +
    'Say why in reason.',
  input: z.object({ reason: z.string().optional() }),
  async run({ reason }) {
    const why = reason?.trim() ? `yielded: ${reason.trim()}` : 'yielded until a message arrives';
    return {
      output: { yielded: true },
      stop: { exit: { kind: 'yielded', reason: why }, park: true },
    };
  },
});
