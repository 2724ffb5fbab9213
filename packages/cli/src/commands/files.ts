import { resolve } from 'node:path';
import type { FileList, FileSlice, FileWriteParams } from '@svc/client';
import { FILES_LIST_MAX_LIMIT, FILES_READ_MAX_BYTES, FILES_WRITE_MAX_BYTES } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { whenCell } from '../output/relative-time.ts';
import { renderTable } from '../output/table.ts';
import { type ContentLimit, readContent } from '../parse/local-content.ts';
import { positive } from '../parse/number.ts';

export function registerFiles(program: Command, runtime: Runtime): void {
  const files = program
    .command('files')
    .description("read, write and list the host's files through the daemon");

  files
    .command('read')
    .description(
      'print a file (its bytes as they are); --json prints the slice as the daemon answers it',
    )
    .argument('<path>', 'the file, made absolute')
    .option('--offset <n>', 'the byte to start at (default 0)')
    .option(
      '--max-bytes <n>',
      `the most bytes read (daemon default 262144, at most ${FILES_READ_MAX_BYTES})`,
    )
    .action(action(runtime, read));
  files
    .command('write')
    .description('write a whole file atomically from --data, --from or stdin (at most 1 MiB)')
    .argument('<path>', 'the file, made absolute')
    .option('--data <text>', 'the content, as text')
    .option('--from <file>', 'copy the bytes of this local file')
    .option('--parents', 'make missing parent directories')
    .action(action(runtime, write));
  files
    .command('list')
    .description("a directory's entries, by name: type, size, modified, name")
    .argument('<path>', 'the directory, made absolute')
    .option(
      '--limit <n>',
      `the most entries (daemon default 1000, at most ${FILES_LIST_MAX_LIMIT})`,
    )
    .action(action(runtime, list));
}

async function read(ctx: Context, path: string, opts: { offset?: string; maxBytes?: string }) {
  const params: { path: string; offset?: number; max_bytes?: number } = { path: resolve(path) };
  if (opts.offset !== undefined) params.offset = parseOffset(opts.offset);
  if (opts.maxBytes !== undefined) {
    params.max_bytes = bounded(opts.maxBytes, '--max-bytes', FILES_READ_MAX_BYTES);
  }
  const client = await ctx.client();
  const slice = await client.files.read(params);
  if (ctx.out.json) {
    ctx.out.result(slice, () => '');
    return EXIT.ok;
  }
  const bytes = bytesOf(slice);
  if (ctx.io.stdoutBytes !== undefined) ctx.io.stdoutBytes(bytes);
  else ctx.io.stdout(slice.encoding === 'utf8' ? slice.content : bytes.toString('latin1'));
  if (slice.truncated) {
    const next = slice.offset + bytes.length;
    ctx.out.note(
      `svc: ${bytes.length} of ${slice.size} bytes shown; read on with --offset ${next}`,
    );
  }
  return EXIT.ok;
}

const WRITE_LIMIT: ContentLimit = {
  bytes: FILES_WRITE_MAX_BYTES,
  rule: `the daemon takes at most ${FILES_WRITE_MAX_BYTES} (1 MiB)`,
};

async function write(
  ctx: Context,
  path: string,
  opts: { data?: string; from?: string; parents?: boolean },
) {
  const bytes = await readContent(opts, WRITE_LIMIT);
  const text = utf8(bytes);
  const params: FileWriteParams =
    text === null
      ? { path: resolve(path), content: bytes.toString('base64'), encoding: 'base64' }
      : { path: resolve(path), content: text };
  if (opts.parents === true) params.create_parents = true;
  const client = await ctx.client();
  const written = await client.files.write(params);
  ctx.out.result(written, () => `wrote ${written.size} bytes to ${written.path}`);
  return EXIT.ok;
}

async function list(ctx: Context, path: string, opts: { limit?: string }) {
  const params: { path: string; limit?: number } = { path: resolve(path) };
  if (opts.limit !== undefined) params.limit = bounded(opts.limit, '--limit', FILES_LIST_MAX_LIMIT);
  const client = await ctx.client();
  const listing: FileList = await client.files.list(params);
  ctx.out.result(listing, (colors) => {
    const table = renderTable(
      listing.entries,
      [
        { header: 'TYPE', value: (e) => e.type },
        { header: 'SIZE', value: (e) => String(e.size) },
        { header: 'MODIFIED', value: (e) => whenCell(e.modified_at) },
        { header: 'NAME', value: (e) => e.name },
      ],
      colors,
      'entries',
    );
    return listing.truncated ? `${table}\n(more entries: raise --limit)` : table;
  });
  return EXIT.ok;
}

function bytesOf(slice: FileSlice): Buffer {
  return Buffer.from(slice.content, slice.encoding === 'base64' ? 'base64' : 'utf8');
}

/** `--offset n`: a byte position, 0 included. */
function parseOffset(value: string): number {
  const n = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new UsageError(
      `--offset must be a whole number of bytes, 0 or more; received '${value}'`,
    );
  }
  return n;
}

function bounded(value: string, flag: string, max: number): number {
  const n = positive(value, flag, true);
  if (n > max) throw new UsageError(`${flag} must be at most ${max}; received '${value}'`);
  return n;
}

/** The bytes as text when they are UTF-8, so the daemon gets them readable; else `null`. */
function utf8(bytes: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
