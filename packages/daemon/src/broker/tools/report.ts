/** `report`: a progress report for the parent and the canvas; the work goes on. */
import { z } from 'zod';
import { defineTool } from './tool.ts';

const REPORTED = { reported: true };

export const reportTool = defineTool({
  name: 'report',
  description: 'Post a short progress report to your parent and the canvas, then keep working.',
  input: z.object({
    text: z.string().min(1),
    data: z.unknown().optional().describe('structured detail, any JSON value'),
  }),
  // Made with the call's result, in its record (or its turn's): exactly once, and no request of
  // its own.
  inline: (report) => ({ output: REPORTED, report }),
  async run(report) {
    return { output: REPORTED, report };
  },
});
