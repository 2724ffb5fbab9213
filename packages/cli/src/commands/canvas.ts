/**
 * `svc canvas`: what needs the person, the canvas as trees, the live agents, a dashboard,
 * pruning, and the event log live (`watch`); `svc canvas history` is `canvas-history.ts`
 * (docs/cli.md "svc canvas"). Every argument is checked before anything is sent (exit 2).
 */
import type { AttentionListParams } from '@svc/client';
import { ATTENTION_KINDS, LIVE_STATES, SNAPSHOT_LIMIT_MAX } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import {
  renderAttention,
  renderCanvasTree,
  renderCounts,
  renderDashboard,
  renderRoster,
} from '../output/canvas-view.ts';
import { parseChoice } from '../parse/choice.ts';
import { parseDuration } from '../parse/duration.ts';
import { positive } from '../parse/number.ts';
import { registerCanvasHistory } from './canvas-history.ts';
import { printEventLog, withEventLogOptions } from './shared/event-log.ts';
import { parseLimit, parseStates } from './shared/list-options.ts';
import { nodeId } from './shared/node-ref.ts';

export function registerCanvas(program: Command, runtime: Runtime): void {
  const canvas = program
    .command('canvas')
    .description('the canvas: what needs you, every agent you may see, their history');

  canvas
    .command('attention')
    .description(
      'what needs you now, newest first: open tickets, failed or stuck nodes, failed crons',
    )
    .option('--kinds <list>', `only these kinds, comma-separated (${ATTENTION_KINDS.join(', ')})`)
    .option('--limit <n>', 'at most this many', '50')
    .option('--after <cursor>', 'the next page, from the cursor the previous one printed')
    .action(action(runtime, attention));
  canvas
    .command('counts')
    .description('how many attention items there are, by kind')
    .action(action(runtime, counts));
  canvas
    .command('snapshot')
    .description('the nodes you may see as trees, with the event seq they are current to')
    .option('--root <node-id>', 'only this tree')
    .option(
      '--limit <n>',
      `at most this many nodes, newest first (up to ${SNAPSHOT_LIMIT_MAX})`,
      '500',
    )
    .action(action(runtime, snapshot));
  canvas
    .command('roster')
    .description('the live agents: broker, turns, tokens, cost, current wait')
    .option('--state <list>', `comma-separated live states (${LIVE_STATES.join(', ')})`)
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, roster));
  canvas
    .command('dashboard')
    .description('daemon status and the newest nodes, by state')
    .option('--state <list>', 'only nodes in these states, comma-separated')
    .option('--limit <n>', 'at most this many nodes', '200')
    .action(action(runtime, dashboard));
  canvas
    .command('prune')
    .description('remove finished trees that ended long ago, with their turns and worktrees')
    .option('--older-than <duration>', 'every node of the tree ended this long ago (0: any)', '7d')
    .option('--dry-run', 'only name the trees that would go')
    .option('--include-runs', "also the trees of apps' runs")
    .option('--limit <n>', 'at most this many trees')
    .action(action(runtime, prune));
  withEventLogOptions(
    canvas
      .command('watch')
      .description("print the owner's event log live, from now (as svc events -f)"),
  )
    .option('--no-follow', 'print the history asked for (all of it by default), then exit')
    .addHelpText(
      'after',
      `
Examples:
  svc canvas watch                          what happens from now on
  svc canvas watch --tail 10                the last 10 events, then what happens
  svc canvas watch --since 1h --kinds node.state,human.request
  svc canvas watch --no-follow --after 120  what happened after seq 120, then exit`,
    )
    .action(action(runtime, printEventLog));
  registerCanvasHistory(canvas, runtime);
}

function parseAttentionKinds(value: string | undefined): AttentionListParams['kinds'] {
  if (value === undefined) return undefined;
  return value.split(',').map((k) => parseChoice(k, ATTENTION_KINDS, '--kinds')!);
}

async function attention(ctx: Context, opts: { kinds?: string; limit: string; after?: string }) {
  const kinds = parseAttentionKinds(opts.kinds);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.canvas.attention({
    limit,
    ...(kinds !== undefined && { kinds }),
    ...(opts.after !== undefined && { after: opts.after }),
  });
  ctx.out.result(page, (colors) => renderAttention(page.data, colors));
  if (!ctx.out.json && page.next_cursor !== null) {
    ctx.out.note(`more: svc canvas attention --after '${page.next_cursor}'`);
  }
  return EXIT.ok;
}

async function counts(ctx: Context) {
  const client = await ctx.client();
  const answer = await client.canvas.attentionCounts();
  ctx.out.result(answer, (colors) => renderCounts(answer, colors));
  return EXIT.ok;
}

async function snapshot(ctx: Context, opts: { root?: string; limit: string }) {
  const root = opts.root === undefined ? undefined : nodeId(opts.root, '--root');
  const limit = positive(opts.limit, '--limit', true);
  if (limit > SNAPSHOT_LIMIT_MAX) {
    throw new UsageError(`--limit must be at most ${SNAPSHOT_LIMIT_MAX}; received '${opts.limit}'`);
  }
  const client = await ctx.client();
  const snap = await client.canvas.snapshot({
    limit,
    ...(root !== undefined && { root_id: root }),
  });
  ctx.out.result(snap, (colors) => renderCanvasTree(snap.nodes, colors));
  if (!ctx.out.json) {
    const cut = snap.truncated ? `; only the newest ${limit} nodes shown` : '';
    ctx.out.note(
      `as of event ${snap.seq}${cut}; follow on with: svc canvas watch --after ${snap.seq}`,
    );
  }
  return EXIT.ok;
}

async function roster(ctx: Context, opts: { state?: string; limit: string }) {
  const states = opts.state?.split(',').map((s) => parseChoice(s, LIVE_STATES, '--state')!);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.canvas.roster({
    limit,
    ...(states !== undefined && { state: states }),
  });
  ctx.out.result(page, (colors) => renderRoster(page.data, colors));
  return EXIT.ok;
}

async function dashboard(ctx: Context, opts: { state?: string; limit: string }) {
  const states = parseStates(opts.state);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const board = await client.canvas.dashboard({ limit, ...(states && { state: states }) });
  ctx.out.result(board, (colors) => renderDashboard(board, colors));
  return EXIT.ok;
}

async function prune(
  ctx: Context,
  opts: { olderThan: string; dryRun?: boolean; includeRuns?: boolean; limit?: string },
) {
  const olderThan =
    opts.olderThan.trim() === '0' ? 0 : parseDuration(opts.olderThan, '--older-than');
  const limit = opts.limit === undefined ? undefined : positive(opts.limit, '--limit', true);
  if (limit !== undefined && limit > 1000) {
    throw new UsageError(`--limit must be at most 1000; received '${opts.limit}'`);
  }
  const client = await ctx.client();
  const answer = await client.canvas.prune({
    older_than_s: olderThan,
    ...(opts.dryRun === true && { dry_run: true }),
    ...(opts.includeRuns === true && { include_runs: true }),
    ...(limit !== undefined && { limit }),
  });
  ctx.out.result(answer, () => {
    const verb = answer.dry_run ? 'would prune' : 'pruned';
    const what = `${verb} ${answer.count} ${answer.count === 1 ? 'tree' : 'trees'} (${answer.nodes} ${answer.nodes === 1 ? 'node' : 'nodes'})`;
    return answer.pruned.length === 0 ? what : `${what}: ${answer.pruned.join(', ')}`;
  });
  if (!ctx.out.json && answer.has_more) ctx.out.note('more trees qualify: run it again');
  return EXIT.ok;
}
