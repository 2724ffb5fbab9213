/**
 * `read_file`, `write_file`, `list_files`: the daemon's own files service, run in the broker over
 * the node's sandbox view: its worktree, the directories its files scopes (or, holding every
 * scope, the daemon's defaults) bind, less what the sandbox hides — what its `bash` sees. A path may be relative to that directory. A refusal, or a failure of
 * the host's file system, is a tool error the model reads.
 */
import { realpath } from 'node:fs/promises';
import { posix } from 'node:path';
import {
  FILES_LIST_MAX_LIMIT,
  FILES_READ_DEFAULT_BYTES,
  FILES_READ_MAX_BYTES,
  FILES_WRITE_MAX_BYTES,
} from '@svc/protocol';
import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { type FilesAccess, realHome } from '../../files/access.ts';
import { listDirectory } from '../../files/list.ts';
import { readFileSlice } from '../../files/read.ts';
import { writeFileAtomic } from '../../files/write.ts';
import { writeNotesDir } from '../../nodes/workspace/write-notes.ts';
import type { ToolContext, ToolOutcome } from './tool.ts';
import { defineTool } from './tool.ts';

const pathInput = z.string().min(1).describe('absolute, or relative to your working directory');

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a file. Returns path, size (of the whole file), offset, content, encoding ("utf8" ' +
    'text, or "base64" when the bytes are not UTF-8) and truncated (more bytes follow: read ' +
    'again from offset + the bytes returned).',
  input: z.object({
    path: pathInput,
    offset: z.number().int().min(0).optional().describe('the byte to start at (default 0)'),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(FILES_READ_MAX_BYTES)
      .optional()
      .describe(`the most bytes returned (default ${FILES_READ_DEFAULT_BYTES})`),
  }),
  run: ({ path, ...rest }, ctx) =>
    files(ctx, (who) => readFileSlice({ path: absolute(path, ctx), ...rest }, who)),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    `Write a whole file, replacing it atomically (at most ${FILES_WRITE_MAX_BYTES} bytes). ` +
    'Returns path and size.',
  input: z.object({
    path: pathInput,
    content: z.string(),
    encoding: z
      .enum(['utf8', 'base64'])
      .optional()
      .describe('how content is encoded (default utf8)'),
    create_parents: z
      .boolean()
      .optional()
      .describe('make missing parent directories (default false)'),
  }),
  run: ({ path, ...rest }, ctx) =>
    files(ctx, (who) => writeFileAtomic({ path: absolute(path, ctx), ...rest }, who)),
});

export const listFilesTool = defineTool({
  name: 'list_files',
  description:
    "List a directory's entries sorted by name: name, type (file, directory, symlink, other), " +
    'size and modified_at; truncated when more exist.',
  input: z.object({
    path: pathInput.optional().describe('default: your working directory'),
    limit: z.number().int().min(1).max(FILES_LIST_MAX_LIMIT).optional().describe('default 1000'),
  }),
  run: ({ path, limit }, ctx) =>
    files(ctx, (who) => listDirectory({ path: absolute(path ?? '.', ctx), limit }, who)),
});

function absolute(path: string, ctx: ToolContext): string {
  return path.startsWith('/') ? path : posix.join(ctx.cwd, path);
}

async function files(
  ctx: ToolContext,
  call: (who: FilesAccess) => Promise<unknown>,
): Promise<ToolOutcome> {
  const root = await realpath(ctx.cwd).catch(() => null);
  const who: FilesAccess = {
    scopes: ctx.node.scopes,
    roots: root === null ? [] : [root],
    // Exactly what its shell sees (the sandbox's layers); with no plan, its worktree alone.
    view: ctx.sandbox?.layers ?? (root === null ? [] : [{ path: root, kind: 'rw' as const }]),
    home: ctx.home === undefined ? undefined : realHome(ctx.home),
    pending: ctx.home === undefined ? undefined : writeNotesDir(ctx.home),
  };
  try {
    return { output: await call(who) };
  } catch (error) {
    // The loop answers refusals (`ApiError`) itself; a host failure (a full disk, an I/O error)
    // is no crash of the node either.
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (!(error instanceof ApiError) && typeof code === 'string') {
      return { output: `${code}: the file system refused the call`, is_error: true };
    }
    throw error;
  }
}
