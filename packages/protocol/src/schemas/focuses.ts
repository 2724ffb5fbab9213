/**
 * Focuses (docs/api-v1.md "Focuses"): which terminal-multiplexer pane shows a node, for the
 * viewer. One focus per node; several nodes may name the same pane (a pane is reused over time).
 * No client method: reached through `client.request` (SPEC "Routes without a client method").
 */
import { z } from 'zod';
import { idSchema, listQuerySchema, timestampSchema } from './common.ts';

export const FOCUS_PANE_MAX_LENGTH = 200;

/**
 * A tmux-style target (`%12`, `main:1.2`, …). Only its shape is checked: printable ASCII without
 * spaces, so it never carries a control character into a terminal or a log line. It is data: a
 * consumer passes it as one argument (argv), never through a shell.
 */
export const paneSchema = z
  .string()
  .min(1)
  .max(FOCUS_PANE_MAX_LENGTH)
  .regex(/^[!-~]+$/, 'must be printable ASCII without spaces')
  .describe(
    `a multiplexer pane target such as %12 or main:1.2: 1 to ${FOCUS_PANE_MAX_LENGTH} printable ASCII characters, no spaces`,
  );

export const focusSchema = z.object({
  node_id: idSchema('node'),
  pane: z.string().describe('the pane showing the node'),
  created_at: timestampSchema.describe('when the node was first focused'),
  updated_at: timestampSchema.describe('when its pane was last set'),
});
export type Focus = z.output<typeof focusSchema>;

export const focusSetBodySchema = z.strictObject({ pane: paneSchema });

export const focusListQuerySchema = listQuerySchema.extend({
  after: idSchema('node').optional().describe('the next_cursor of the previous page'),
  pane: paneSchema.optional().describe('only the focuses on this pane'),
});

export const focusParamsSchema = z.object({ node_id: idSchema('node') });

export const focusDeleteResultSchema = z.object({
  node_id: idSchema('node'),
  deleted: z.literal(true),
});
