/**
 * `svc canvas history`: the recorded turns, searched (full text), grepped (a regular
 * expression), read as a transcript and summed (docs/cli.md "svc canvas").
 */
import { GREP_PATTERN_MAX, HISTORY_QUERY_MAX, STATS_GROUPS } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderStats, renderTranscript } from '../output/canvas-view.ts';
import { whenCell } from '../output/relative-time.ts';
import { renderTable } from '../output/table.ts';
import { parseChoice } from '../parse/choice.ts';
import { parseDuration } from '../parse/duration.ts';
import { positive } from '../parse/number.ts';
import { parseLimit } from './shared/list-options.ts';
import { nodeId } from './shared/node-ref.ts';

export function registerCanvasHistory(canvas: Command, runtime: Runtime): void {
  const history = canvas
    .command('history')
    .description('the recorded turns: search, grep, read, stats');
  history
    .command('search')
    .description('full-text search, best first (every word must occur; word* for a prefix)')
    .argument('<words...>', 'what to find')
    .option('--node <node-id>', 'only this node')
    .option('--limit <n>', 'at most this many', '20')
    .option('--after <cursor>', 'the next page, from the cursor the previous one printed')
    .action(action(runtime, search));
  history
    .command('grep')
    .description('lines matching a regular expression, newest turns first')
    .argument('<pattern>', 'a JavaScript regular expression')
    .option('-i, --ignore-case', 'match regardless of case')
    .option('--node <node-id>', 'only this node')
    .option('--limit <n>', 'at most this many lines', '50')
    .action(action(runtime, grep));
  history
    .command('read')
    .description("a node's transcript, turn by turn")
    .argument('<node-id>', 'node id')
    .option('--from-turn <n>', 'start at this turn', '1')
    .option('--limit <n>', 'at most this many turns', '50')
    .action(action(runtime, read));
  history
    .command('stats')
    .description('turns, tokens and cost by day, profile or model; nodes by state')
    .option('--since <when>', 'a duration back from now (7d, 12h) or a time (2026-01-31T00:00:00Z)')
    .option('--by <group>', `${STATS_GROUPS.join(', ')}`, 'day')
    .action(action(runtime, stats));
}

async function search(
  ctx: Context,
  words: string[],
  opts: { node?: string; limit: string; after?: string },
) {
  const q = words.join(' ');
  if (q.length > HISTORY_QUERY_MAX) {
    throw new UsageError(`the search words must be at most ${HISTORY_QUERY_MAX} characters`);
  }
  const node = opts.node === undefined ? undefined : nodeId(opts.node, '--node');
  if (opts.after !== undefined && !/^\d{1,5}$/.test(opts.after)) {
    throw new UsageError(
      `--after must be the cursor a previous page printed; received '${opts.after}'`,
    );
  }
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.canvas.history.search({
    q,
    limit,
    ...(node !== undefined && { node_id: node }),
    ...(opts.after !== undefined && { after: opts.after }),
  });
  ctx.out.result(page, (colors) =>
    page.data.length === 0
      ? 'no matches'
      : renderTable(
          page.data,
          [
            { header: 'NODE', value: (h) => h.node_id },
            { header: 'TURN', value: (h) => String(h.turn) },
            { header: 'TIME', value: (h) => whenCell(h.created_at) },
            { header: 'SNIPPET', value: (h) => h.snippet },
          ],
          colors,
        ),
  );
  if (!ctx.out.json && page.next_cursor !== null) {
    ctx.out.note(`more: add --after ${page.next_cursor}`);
  }
  return EXIT.ok;
}

async function grep(
  ctx: Context,
  pattern: string,
  opts: { ignoreCase?: boolean; node?: string; limit: string },
) {
  if (pattern.length > GREP_PATTERN_MAX) {
    throw new UsageError(`<pattern> must be at most ${GREP_PATTERN_MAX} characters`);
  }
  try {
    new RegExp(pattern, opts.ignoreCase === true ? 'i' : '');
  } catch (error) {
    throw new UsageError(`<pattern> is not a regular expression: ${(error as Error).message}`);
  }
  const node = opts.node === undefined ? undefined : nodeId(opts.node, '--node');
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const answer = await client.canvas.history.grep({
    pattern,
    limit,
    ...(opts.ignoreCase === true && { ignore_case: true }),
    ...(node !== undefined && { node_id: node }),
  });
  ctx.out.result(answer, (colors) =>
    answer.data.length === 0
      ? 'no matches'
      : answer.data
          .map((h) => `${colors.dim(`${h.node_id}#${h.turn} ${h.where}:`)} ${h.line}`)
          .join('\n'),
  );
  if (!ctx.out.json && answer.timed_out) {
    ctx.out.note(`stopped at the time limit after ${answer.scanned_turns} turns`);
  } else if (!ctx.out.json && answer.truncated) {
    ctx.out.note(`stopped after ${answer.data.length} lines; raise --limit or narrow the pattern`);
  }
  return EXIT.ok;
}

async function read(ctx: Context, id: string, opts: { fromTurn: string; limit: string }) {
  const checked = nodeId(id);
  const from = positive(opts.fromTurn, '--from-turn', true);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.canvas.history.read(checked, { from_turn: from, limit });
  ctx.out.result(page, (colors) => renderTranscript(page.data, colors));
  if (!ctx.out.json && page.next_cursor !== null) {
    ctx.out.note(`more: svc canvas history read ${checked} --from-turn ${page.next_cursor}`);
  }
  return EXIT.ok;
}

/** `7d` (back from now) or a date-time with its zone; else a usage error. */
function parseSince(value: string): string {
  if (/^\d+[smhdw]/.test(value.trim()) || /^\d+$/.test(value.trim())) {
    return new Date(Date.now() - parseDuration(value, '--since') * 1000).toISOString();
  }
  if (
    /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  ) {
    return value;
  }
  throw new UsageError(
    `--since must be a duration (7d, 12h) or a date-time with its zone (2026-01-31T00:00:00Z); received '${value}'`,
  );
}

async function stats(ctx: Context, opts: { since?: string; by: string }) {
  const since = opts.since === undefined ? undefined : parseSince(opts.since);
  const groupBy = parseChoice(opts.by, STATS_GROUPS, '--by')!;
  const client = await ctx.client();
  const answer = await client.canvas.history.stats({
    group_by: groupBy,
    ...(since !== undefined && { since }),
  });
  ctx.out.result(answer, (colors) => renderStats(answer, colors));
  return EXIT.ok;
}
