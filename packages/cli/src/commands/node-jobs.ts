/** `svc node jobs ls|cancel`: a node's background commands and long tool calls. */
import type { Job } from '@svc/client';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { stateStyle } from '../output/node-view.ts';
import { whenCell } from '../output/relative-time.ts';
import { renderTable } from '../output/table.ts';
import { parseId } from '../parse/id.ts';
import { DEFAULT_PAGE_LIMIT } from './shared/event-table.ts';
import { parseLimit } from './shared/list-options.ts';
import { nodeId } from './shared/node-ref.ts';

export function registerNodeJobs(node: Command, runtime: Runtime): void {
  const jobs = node
    .command('jobs')
    .description("a node's jobs (background commands and long tool calls)");
  jobs
    .command('ls')
    .description("a node's jobs, newest first")
    .argument('<id>', 'node id')
    .option('--after <cursor>', 'the page after this cursor (printed under a full page)')
    .option('--limit <n>', 'at most this many', String(DEFAULT_PAGE_LIMIT))
    .action(action(runtime, list));
  jobs
    .command('cancel')
    .description('stop a running job (its broker kills it; without a live broker it ends now)')
    .argument('<id>', 'node id')
    .argument('<job-id>', 'job id')
    .action(action(runtime, cancel));
}

async function list(ctx: Context, id: string, opts: { after?: string; limit: string }) {
  const checked = nodeId(id);
  const limit = parseLimit(opts.limit);
  // A cursor is opaque, but the daemon takes 1-200 characters: refuse what it would refuse.
  const after = opts.after;
  if (after !== undefined && (after.length === 0 || after.length > 200)) {
    throw new UsageError(`--after must be a cursor of 1-200 characters; received '${after}'`);
  }
  const client = await ctx.client();
  const page = await client.nodes.jobs.list(checked, {
    limit,
    ...(after !== undefined && { after }),
  });
  ctx.out.result(page, (colors) =>
    page.data.length === 0
      ? 'no jobs'
      : renderTable(
          page.data,
          [
            { header: 'ID', value: (j) => j.id },
            { header: 'KIND', value: (j) => j.kind },
            { header: 'STATE', value: (j) => j.state, style: stateStyle },
            { header: 'EXIT', value: (j) => (j.exit_code === null ? '-' : String(j.exit_code)) },
            { header: 'STARTED', value: (j) => whenCell(j.started_at) },
            { header: 'TITLE', value: (j) => j.title },
          ],
          colors,
        ),
  );
  if (!ctx.out.json && page.has_more && page.next_cursor !== null) {
    const again = limit === DEFAULT_PAGE_LIMIT ? '' : ` --limit ${limit}`;
    ctx.out.note(`more jobs: svc node jobs ls ${checked}${again} --after ${page.next_cursor}`);
  }
  return EXIT.ok;
}

async function cancel(ctx: Context, id: string, job: string) {
  const checked = nodeId(id);
  const jobId = parseId('job', job);
  const client = await ctx.client();
  const answer = await client.nodes.jobs.cancel(checked, jobId);
  ctx.out.result(answer, () => cancelled(answer));
  return EXIT.ok;
}

/** A job still running was asked to stop: its broker settles it at its next directive. */
function cancelled(job: Job): string {
  if (job.state === 'running') return `asked ${job.id} to stop; its broker ends it`;
  return `${job.id} is ${job.state}`;
}
