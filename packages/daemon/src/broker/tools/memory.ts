/**
 * `memory_read`, `memory_list`, `memory_write`: the daemon's `memory` routes called with the
 * node's token, so a node reads and writes exactly what those routes allow it (docs/api-v1.md
 * "Memory"): its own space and its app's without a scope, the person's public documents, and
 * more as its memory scopes allow. A refusal is a tool error the model reads.
 */
import {
  LIST_LIMIT_MAX,
  MEMORY_CONTENT_MAX_BYTES,
  MEMORY_KINDS,
  MEMORY_PRIVACY,
  MEMORY_TITLE_MAX,
} from '@svc/protocol';
import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import type { BrokerNode } from '../port.ts';
import { defineTool } from './tool.ts';

const spaceInput = z
  .string()
  .min(1)
  .optional()
  .describe(
    "'user' (the person's documents; the default), 'node' (your own notes), 'app' (your app's " +
      "shared documents), or a full space such as 'app:<id>'",
  );

const pathInput = z.string().min(1).describe("a relative path such as 'prefs/food.md'");

export const memoryReadTool = defineTool({
  name: 'memory_read',
  description:
    'Read a memory document: space, path, title, kind (knowledge or preference), privacy, ' +
    'version and content. A document you may not see is reported missing.',
  input: z.object({ space: spaceInput, path: pathInput }),
  async run({ space, path }, { port, node }) {
    return { output: await port.memoryRead({ space: spaceOf(space, node), path }) };
  },
});

export const memoryListTool = defineTool({
  name: 'memory_list',
  description:
    "List a memory space's documents by path, without their content: data (each with space, " +
    'path, title, kind, privacy, size, version), has_more and next_cursor (pass it as after ' +
    'for the next page).',
  input: z.object({
    space: spaceInput,
    prefix: z.string().min(1).optional().describe("only paths starting with this, e.g. 'prefs/'"),
    kind: z.enum(MEMORY_KINDS).optional(),
    privacy: z.enum(MEMORY_PRIVACY).optional(),
    limit: z.number().int().min(1).max(LIST_LIMIT_MAX).optional().describe('default 50'),
    after: z.string().min(1).optional().describe('the next_cursor of the previous page'),
  }),
  async run({ space, limit, ...rest }, { port, node }) {
    const query = {
      ...rest,
      space: spaceOf(space, node),
      ...(limit !== undefined && { limit: String(limit) }),
    };
    return { output: await port.memoryList(query) };
  },
});

export const memoryWriteTool = defineTool({
  name: 'memory_write',
  description:
    `Create or replace a memory document (at most ${MEMORY_CONTENT_MAX_BYTES} bytes). Omitted ` +
    'title, kind and privacy keep their values (a new document: the last path segment, ' +
    'knowledge, and the most private level you can read back). Give if_version (0: must not ' +
    'exist yet) to refuse overwriting a change you have not seen. Returns the document.',
  input: z.object({
    space: spaceInput,
    path: pathInput,
    content: z.string(),
    title: z.string().min(1).max(MEMORY_TITLE_MAX).optional(),
    kind: z.enum(MEMORY_KINDS).optional(),
    privacy: z.enum(MEMORY_PRIVACY).optional(),
    if_version: z.number().int().min(0).optional(),
  }),
  async run({ space, ...rest }, { port, node, idempotencyKey }) {
    const body = { ...rest, space: spaceOf(space, node) };
    return { output: await port.memoryWrite(body, idempotencyKey) };
  },
});

/** The space a tool call names: the shorthands `user`, `node` and `app` made full. */
function spaceOf(space: string | undefined, node: BrokerNode): string {
  if (space === undefined || space === 'user') return 'user';
  if (space === 'node') return `node:${node.id}`;
  if (space === 'app') {
    if (node.app_id === null) {
      throw new ApiError('invalid_request', "this node belongs to no app: it has no 'app' space", {
        field: 'space',
      });
    }
    return `app:${node.app_id}`;
  }
  return space;
}
