/** `svc node outcome|events|reports`: what a node ended with, and pages of what it did. */
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT } from '../errors.ts';
import { cell } from '../output/format.ts';
import { renderOutcome } from '../output/node-view.ts';
import { whenCell } from '../output/relative-time.ts';
import { renderTable } from '../output/table.ts';
import {
  DEFAULT_PAGE_LIMIT,
  type EventsOptions,
  listEvents,
  withEventPageOptions,
} from './shared/event-table.ts';
import { parseAfter, parseLimit } from './shared/list-options.ts';
import { nodeId } from './shared/node-ref.ts';

export function registerNodeInspect(node: Command, runtime: Runtime): void {
  node
    .command('outcome')
    .description("a final node's outcome: state, summary, error, result")
    .argument('<id>', 'node id')
    .action(action(runtime, outcome));
  withEventPageOptions(
    node
      .command('events')
      .description("a page of a node's events, oldest first (watch follows them live)")
      .argument('<id>', 'node id'),
    'node.state,node.turn',
  )
    .option('--subtree', "include its descendants' events")
    .action(action(runtime, events));
  node
    .command('reports')
    .description("a node's progress reports, oldest first")
    .argument('<id>', 'node id')
    .option('--after <seq>', 'start after this report seq')
    .option('--limit <n>', 'at most this many', String(DEFAULT_PAGE_LIMIT))
    .action(action(runtime, reports));
}

async function outcome(ctx: Context, id: string) {
  const checked = nodeId(id);
  const client = await ctx.client();
  const answer = await client.nodes.outcome(checked);
  ctx.out.result(answer, (colors) => renderOutcome(answer, colors));
  return EXIT.ok;
}

async function events(ctx: Context, id: string, opts: EventsOptions) {
  const checked = nodeId(id);
  return listEvents(ctx, `svc node events ${checked}`, opts, (client, query) =>
    client.nodes.events(checked, query),
  );
}

async function reports(ctx: Context, id: string, opts: { after?: string; limit: string }) {
  const checked = nodeId(id);
  const after = opts.after === undefined ? undefined : parseAfter(opts.after, 'a report seq');
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.nodes.reports.list(checked, {
    limit,
    ...(after !== undefined && { after: String(after) }),
  });
  ctx.out.result(page, (colors) =>
    page.data.length === 0
      ? 'no reports'
      : renderTable(
          page.data,
          [
            { header: 'SEQ', value: (r) => String(r.seq) },
            { header: 'TIME', value: (r) => whenCell(r.created_at) },
            { header: 'TEXT', value: (r) => r.text },
            { header: 'DATA', value: (r) => cell(r.data) },
          ],
          colors,
        ),
  );
  if (!ctx.out.json && page.has_more && page.next_cursor !== null) {
    const again = limit === DEFAULT_PAGE_LIMIT ? '' : ` --limit ${limit}`;
    ctx.out.note(`more reports: svc node reports ${checked}${again} --after ${page.next_cursor}`);
  }
  return EXIT.ok;
}
