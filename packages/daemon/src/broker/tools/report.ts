/** `report`: a progress report for the parent and the canvas; the work goes on. */
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const reportTool = defineTool({
  name: 'report',
  description: 'Post a short progress report to your parent and the canvas, then keep working.',
  input: z.object({
    text: z.string().min(1),
    data: z.unknown().optional().describe('structured detail, any JSON value'),
  }),
  async run(report, { port }) {
    await port.report(report);
    return { output: { reported: true } };
  },
});
