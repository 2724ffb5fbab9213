/**
 * `svc cron`: schedules that create a root node with a fixed task each time they fire
 * (docs/cli.md "svc cron"). Every argument is checked before anything is sent (exit 2).
 */
import type { Cron, CronCreateParams } from '@svc/client';
import { CRON_MISSED, CRON_OVERLAP, CRON_STATES, cronCreateBodySchema } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderCron, renderCronTable } from '../output/cron-view.ts';
import { parseChoice } from '../parse/choice.ts';
import { parseId } from '../parse/id.ts';
import { type CreateOptions, createBody, withCreateOptions } from '../parse/node-create.ts';
import { parseLimit } from './shared/list-options.ts';

interface CronCreateOptions extends CreateOptions {
  schedule: string;
  timezone?: string;
  name?: string;
  missed?: string;
  overlap?: string;
}

const VERBS = {
  pause: 'stop firing on schedule (a paused cron answers unchanged)',
  resume: 'fire on schedule again, the next time counted from now',
  poke: 're-evaluate now: a time passed unfired gets the missed policy',
} as const;

export function registerCron(program: Command, runtime: Runtime): void {
  const cron = program
    .command('cron')
    .description('crons: a task run as a new root node on a schedule (needs svc:schedule)');

  withCreateOptions(
    cron
      .command('create')
      .description('create a cron; each fire creates a root node with the task')
      .argument('<task...>', 'the task')
      .requiredOption(
        '--schedule <expr>',
        "cron expression: 5 fields, or 6 with seconds first (e.g. '0 9 * * 1-5')",
      )
      .option('--timezone <tz>', "IANA time zone the expression is read in (default 'UTC')")
      .option('--name <text>', "name (default: the task's title, else its first line)")
      .option(
        '--missed <policy>',
        'a time passed while the daemon was down: skip, or run_once (one fire for the gap)',
      )
      .option(
        '--overlap <policy>',
        "a time that comes while the last fire's node still works: skip (default), or allow",
      ),
  ).action(action(runtime, create));
  cron
    .command('ls')
    .description('crons, newest first')
    .option('--state <state>', `only ${CRON_STATES.join(' or ')} crons`)
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, list));
  cron
    .command('show')
    .description('one cron')
    .argument('<id>', 'cron id')
    .action(action(runtime, show));
  for (const [verb, description] of Object.entries(VERBS) as [keyof typeof VERBS, string][]) {
    cron
      .command(verb)
      .description(description)
      .argument('<id>', 'cron id')
      .action(action(runtime, (ctx: Context, id: string) => change(ctx, verb, id)));
  }
  cron
    .command('run')
    .description('fire once now, whatever the schedule, even when paused')
    .argument('<id>', 'cron id')
    .action(action(runtime, runNow));
  cron
    .command('rm')
    .description('delete a cron (the nodes it created stay)')
    .argument('<id>', 'cron id')
    .action(action(runtime, remove));
}

function cronId(value: string): string {
  return parseId('cron', value);
}

function printCron(ctx: Context, c: Cron): number {
  ctx.out.result(c, (colors) => renderCron(c, colors));
  return EXIT.ok;
}

/** The create body from the task words and flags, checked with the daemon's own schema. */
function cronBody(task: string[], opts: CronCreateOptions): CronCreateParams {
  const body: CronCreateParams = { schedule: opts.schedule, task: createBody(task, opts) };
  if (opts.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: opts.timezone });
    } catch {
      throw new UsageError(
        `--timezone must be an IANA time zone (e.g. Europe/Paris); received '${opts.timezone}'`,
      );
    }
    body.timezone = opts.timezone;
  }
  if (opts.name !== undefined) body.name = opts.name;
  const missed = parseChoice(opts.missed, CRON_MISSED, '--missed');
  if (missed !== undefined) body.missed = missed;
  const overlap = parseChoice(opts.overlap, CRON_OVERLAP, '--overlap');
  if (overlap !== undefined) body.overlap = overlap;
  const issue = cronCreateBodySchema.safeParse(body).error?.issues[0];
  if (issue !== undefined) {
    // The task's own fields were checked by createBody: what is left is a flag of this command.
    throw new UsageError(`--${String(issue.path[0] ?? 'schedule')}: ${issue.message}`);
  }
  return body;
}

async function create(ctx: Context, task: string[], opts: CronCreateOptions) {
  const body = cronBody(task, opts);
  const client = await ctx.client();
  return printCron(ctx, await client.crons.create(body));
}

async function list(ctx: Context, opts: { state?: string; limit: string }) {
  const state = parseChoice(opts.state, CRON_STATES, '--state');
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.crons.list({
    ...(state !== undefined && { state }),
    limit,
  });
  ctx.out.result(page, (colors) => renderCronTable(page.data, colors));
  return EXIT.ok;
}

async function show(ctx: Context, id: string) {
  const checked = cronId(id);
  const client = await ctx.client();
  return printCron(ctx, await client.crons.retrieve(checked));
}

async function change(ctx: Context, verb: keyof typeof VERBS, id: string) {
  const checked = cronId(id);
  const client = await ctx.client();
  return printCron(ctx, await client.crons[verb](checked));
}

async function runNow(ctx: Context, id: string) {
  const checked = cronId(id);
  const client = await ctx.client();
  const answer = await client.crons.run(checked);
  ctx.out.result(answer, () => `fired ${checked}: created node ${answer.node.id}`);
  return EXIT.ok;
}

async function remove(ctx: Context, id: string) {
  const checked = cronId(id);
  const client = await ctx.client();
  const answer = await client.crons.delete(checked);
  ctx.out.result(answer, () => `deleted ${answer.id}`);
  return EXIT.ok;
}
