/**
 * `svc memory`: the person's documents, an app's and a node's (docs/cli.md "svc memory"). `ls`
 * and `get` are `client.memory`; `put` and `rm` reach the write routes through
 * `client.request`, which the spec gives them. Every argument is checked before anything is sent
 * (exit 2).
 */
import type { MemoryDocument, MemoryListParams } from '@svc/client';
import {
  LIST_LIMIT_MAX,
  MEMORY_CONTENT_MAX_BYTES,
  MEMORY_KINDS,
  MEMORY_PRIVACY,
  MEMORY_TITLE_MAX,
  memoryPathProblem,
  parseMemorySpace,
} from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { documentName, renderMemoryTable } from '../output/memory-view.ts';
import { parseChoice } from '../parse/choice.ts';
import { type ContentLimit, readContent } from '../parse/local-content.ts';
import { parseLimit } from './shared/list-options.ts';

const SPACE_HELP = 'user (default), app:<id>, app:<id>:profile:<p> or node:<node id>';

interface SpaceOption {
  space?: string;
}

export function registerMemory(program: Command, runtime: Runtime): void {
  const memory = program
    .command('memory')
    .description(
      "memory documents: the person's knowledge and preferences, an app's and a node's own",
    );

  memory
    .command('ls')
    .description('documents of a space by path (what this token may see), without content')
    .argument('[prefix]', 'only paths starting with this, e.g. prefs/')
    .option('--space <space>', SPACE_HELP)
    .option('--kind <kind>', `only ${MEMORY_KINDS.join(' or ')} documents`)
    .option('--privacy <level>', `only ${MEMORY_PRIVACY.join(', ')} documents`)
    .option('--limit <n>', `at most this many (at most ${LIST_LIMIT_MAX})`, '50')
    .option('--after <path>', 'the page after this path (the last one shown)')
    .action(action(runtime, list));
  memory
    .command('get')
    .description('print a document: its content; --json the document with its fields')
    .argument('<path>', 'e.g. prefs/food.md')
    .option('--space <space>', SPACE_HELP)
    .action(action(runtime, get));
  memory
    .command('put')
    .description(
      `create or replace a document from --data, --from <file> or stdin (at most ${MEMORY_CONTENT_MAX_BYTES} bytes of UTF-8)`,
    )
    .argument('<path>', 'e.g. prefs/food.md')
    .option('--space <space>', SPACE_HELP)
    .option('--data <text>', 'the content, as text')
    .option('--from <file>', 'the content of this local file')
    .option('--title <text>', "title (default: kept, or the path's last segment)")
    .option('--kind <kind>', `${MEMORY_KINDS.join(' or ')} (default: kept, or knowledge)`)
    .option(
      '--privacy <level>',
      `${MEMORY_PRIVACY.join(', ')} (default: kept, or the most private level you can read back)`,
    )
    .option('--media-type <type>', 'e.g. text/markdown')
    .option('--if-version <n>', 'refuse unless the document is at this version (0: new only)')
    .action(action(runtime, put));
  memory
    .command('rm')
    .description('delete a document')
    .argument('<path>', 'e.g. prefs/food.md')
    .option('--space <space>', SPACE_HELP)
    .option('--if-version <n>', 'refuse unless the document is at this version')
    .action(action(runtime, remove));
}

function checkedSpace(value: string | undefined): string | undefined {
  if (value !== undefined && parseMemorySpace(value) === null) {
    throw new UsageError(`--space must be ${SPACE_HELP}; received '${value}'`);
  }
  return value;
}

function checkedPath(value: string, what = 'path'): string {
  const problem = memoryPathProblem(value);
  if (problem !== null) throw new UsageError(`${what} ${problem}; received '${value}'`);
  return value;
}

function parseVersion(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new UsageError(`--if-version must be a whole number, 0 or more; received '${value}'`);
  }
  return Number(value);
}

async function list(
  ctx: Context,
  prefix: string | undefined,
  opts: SpaceOption & { kind?: string; privacy?: string; limit: string; after?: string },
) {
  const space = checkedSpace(opts.space);
  const kind = parseChoice(opts.kind, MEMORY_KINDS, '--kind');
  const privacy = parseChoice(opts.privacy, MEMORY_PRIVACY, '--privacy');
  const params: MemoryListParams = { limit: parseLimit(opts.limit) };
  if (space !== undefined) params.space = space;
  if (prefix !== undefined && prefix !== '') params.prefix = prefix;
  if (kind !== undefined) params.kind = kind;
  if (privacy !== undefined) params.privacy = privacy;
  if (opts.after !== undefined) params.after = checkedPath(opts.after, '--after');
  const client = await ctx.client();
  const page = await client.memory.list(params);
  ctx.out.result(page, (colors) => renderMemoryTable(page.data, colors));
  if (page.has_more && !ctx.out.json) {
    ctx.out.note(`svc: more documents follow; list on with --after ${page.next_cursor}`);
  }
  return EXIT.ok;
}

async function get(ctx: Context, path: string, opts: SpaceOption) {
  const space = checkedSpace(opts.space);
  const params = { path: checkedPath(path), ...(space !== undefined && { space }) };
  const client = await ctx.client();
  const doc = await client.memory.get(params);
  ctx.out.result(doc, () => doc.content.replace(/\n$/, ''));
  return EXIT.ok;
}

interface PutOptions extends SpaceOption {
  data?: string;
  from?: string;
  title?: string;
  kind?: string;
  privacy?: string;
  mediaType?: string;
  ifVersion?: string;
}

const CONTENT_LIMIT: ContentLimit = {
  bytes: MEMORY_CONTENT_MAX_BYTES,
  rule: `a document holds at most ${MEMORY_CONTENT_MAX_BYTES} (256 KiB)`,
};

async function put(ctx: Context, path: string, opts: PutOptions) {
  const body: Record<string, unknown> = { path: checkedPath(path) };
  const space = checkedSpace(opts.space);
  if (space !== undefined) body.space = space;
  if (opts.title !== undefined) {
    if (opts.title === '' || opts.title.length > MEMORY_TITLE_MAX) {
      throw new UsageError(`--title must be 1 to ${MEMORY_TITLE_MAX} characters`);
    }
    body.title = opts.title;
  }
  const kind = parseChoice(opts.kind, MEMORY_KINDS, '--kind');
  if (kind !== undefined) body.kind = kind;
  const privacy = parseChoice(opts.privacy, MEMORY_PRIVACY, '--privacy');
  if (privacy !== undefined) body.privacy = privacy;
  if (opts.mediaType !== undefined) body.media_type = opts.mediaType;
  const version = parseVersion(opts.ifVersion);
  if (version !== undefined) body.if_version = version;
  body.content = text(await readContent(opts, CONTENT_LIMIT));
  const client = await ctx.client();
  const doc = await client.request<MemoryDocument>('PUT', '/v1/memory/document', body);
  ctx.out.result(
    doc,
    () => `wrote ${documentName(doc)} (version ${doc.version}, ${doc.size} bytes, ${doc.privacy})`,
  );
  return EXIT.ok;
}

async function remove(ctx: Context, path: string, opts: SpaceOption & { ifVersion?: string }) {
  const query = new URLSearchParams({ path: checkedPath(path) });
  const space = checkedSpace(opts.space);
  if (space !== undefined) query.set('space', space);
  const version = parseVersion(opts.ifVersion);
  if (version !== undefined) query.set('if_version', String(version));
  const client = await ctx.client();
  const gone = await client.request<{ space: string; path: string }>(
    'DELETE',
    `/v1/memory/document?${query}`,
  );
  ctx.out.result(gone, () => `deleted ${documentName(gone)}`);
  return EXIT.ok;
}

/** The content as text: a document is UTF-8 of bounded size, refused here before sending. */
function text(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError('the content is not UTF-8 text; a memory document holds text');
  }
}
