/** `message`: sends mail to another node of the tree (a child, the parent); it wakes it. */
import { idSchema } from '@svc/protocol';
import { z } from 'zod';
import { defineTool } from './tool.ts';

export const messageTool = defineTool({
  name: 'message',
  description: 'Send a message to another node of your tree. A waiting node wakes up to read it.',
  input: z.object({ node_id: idSchema('node'), text: z.string().min(1) }),
  async run({ node_id, text }, { port, idempotencyKey }) {
    const mail = await port.messageNode(node_id, text, idempotencyKey);
    return { output: { sent: true, seq: mail.seq } };
  },
});
