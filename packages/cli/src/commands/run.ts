import { NODE_STATES } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderEvent } from '../output/node-view.ts';
import { parseDuration } from '../parse/duration.ts';
import { parseName } from '../parse/name.ts';
import { type CreateOptions, createBody, withCreateOptions } from '../parse/node-create.ts';
import { registerRunParse } from './parse.ts';
import { type EventsOptions, listEvents, withEventPageOptions } from './shared/event-table.ts';
import { parseAfter, parseLimit, parseStates } from './shared/list-options.ts';
import { printRun, RUN, runId } from './shared/run-ref.ts';
import { sendMail, showSubject, stopSubject, waitOn, watchSubject } from './shared/subject.ts';
import { printSubjects } from './shared/subject-table.ts';

const DEFAULT_WAIT_S = 600;

export function registerRun(program: Command, runtime: Runtime): void {
  const run = program.command('run').description("runs: an app's handle on a root node it started");

  withCreateOptions(
    run
      .command('start')
      .description('start a run (a root node) with a task')
      .argument('<task...>', 'the task'),
  )
    .option('--wait', 'wait for the outcome, showing progress')
    .option('--timeout <duration>', 'with --wait: how long to wait', `${DEFAULT_WAIT_S}s`)
    .addHelpText(
      'after',
      `
Examples:
  svc run start "Draft the release notes" --wait
  svc run start "Count the TODOs" --model anthropic/claude-sonnet-4-5 --max-cost-usd 0.50`,
    )
    .action(action(runtime, start));
  run
    .command('ls')
    .description("the caller's runs, newest first (--all: every app's, owner only)")
    .option('--all', "every app's runs")
    .option('--app <app-id>', "with --all: only this app's")
    .option('--state <list>', `comma-separated states (${NODE_STATES.join(', ')})`)
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, list));
  run
    .command('show')
    .description('one run')
    .argument('<id>', 'run id')
    .action(action(runtime, (ctx: Context, id: string) => showSubject(ctx, RUN, id)));
  run
    .command('watch')
    .description("print the events of the run's tree live until it is final")
    .argument('<id>', 'run id')
    .option('--after <seq>', 'start after this event seq', '0')
    .action(action(runtime, watch));
  withEventPageOptions(
    run
      .command('events')
      .description("a page of the events of the run's tree, oldest first (watch follows them live)")
      .argument('<id>', 'run id'),
    'run.state,node.turn',
  ).action(action(runtime, events));
  run
    .command('wait')
    .description('wait for the outcome, showing progress on stderr')
    .argument('<id>', 'run id')
    .option('--timeout <duration>', 'how long to wait', `${DEFAULT_WAIT_S}s`)
    .action(action(runtime, wait));
  for (const verb of ['message', 'reply'] as const) {
    run
      .command(verb)
      .description(
        verb === 'message' ? 'send mail at any time' : 'answer a run that waits for a message',
      )
      .argument('<id>', 'run id')
      .argument('<text...>', 'the text')
      .action(
        action(runtime, (ctx: Context, id: string, text: string[]) => mail(ctx, verb, id, text)),
      );
  }
  for (const verb of ['cancel', 'interrupt'] as const) {
    run
      .command(verb)
      .description(
        verb === 'cancel' ? 'cancel the run and its whole tree' : "stop the root's turn in flight",
      )
      .argument('<id>', 'run id')
      .option('--reason <text>', 'why')
      .action(
        action(runtime, (ctx: Context, id: string, opts: { reason?: string }) =>
          stopSubject(ctx, RUN, verb, id, opts),
        ),
      );
  }
  run
    .command('rename')
    .description("change a run's title")
    .argument('<id>', 'run id')
    .argument('<title...>', 'the new title')
    .action(action(runtime, rename));
  run
    .command('rm')
    .description('delete a final run with its tree, trace and events')
    .argument('<id>', 'run id')
    .action(action(runtime, remove));
  run
    .command('trace')
    .description("the turns and tool calls of the run's tree")
    .argument('<id>', 'run id')
    .action(action(runtime, trace));
  registerRunParse(run, runtime);
}

async function start(
  ctx: Context,
  task: string[],
  opts: CreateOptions & { wait?: boolean; timeout: string },
) {
  const body = createBody(task, opts);
  const timeout = parseDuration(opts.timeout, '--timeout');
  const client = await ctx.client();
  const started = await client.runs.start(body);
  if (!opts.wait) return printRun(ctx, started);
  if (!ctx.out.json) ctx.out.note(`started ${started.id}; waiting for its outcome`);
  return waitOn(ctx, RUN, started.id, timeout);
}

async function list(
  ctx: Context,
  opts: { all?: boolean; app?: string; state?: string; limit: string },
) {
  if (opts.app !== undefined && !opts.all) throw new UsageError('--app requires --all');
  const states = parseStates(opts.state);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const query = { ...(states && { state: states }), limit };
  const page = opts.all
    ? await client.runs.listAll({
        ...query,
        ...(opts.app !== undefined && { app_id: parseName(opts.app, '--app') }),
      })
    : await client.runs.list(query);
  return printSubjects(ctx, page, { header: 'APP', value: (r) => r.app_id ?? 'owner' }, 'runs');
}

async function watch(ctx: Context, id: string, opts: { after: string }) {
  const checked = runId(id);
  const after = parseAfter(opts.after);
  return watchSubject(ctx, RUN, checked, { after, subtree: true });
}

async function events(ctx: Context, id: string, opts: EventsOptions) {
  const checked = runId(id);
  return listEvents(ctx, `svc run events ${checked}`, opts, (client, { subtree: _, ...query }) =>
    client.runs.events(checked, query),
  );
}

async function wait(ctx: Context, id: string, opts: { timeout: string }) {
  return waitOn(ctx, RUN, runId(id), parseDuration(opts.timeout, '--timeout'));
}

async function mail(ctx: Context, verb: 'message' | 'reply', id: string, text: string[]) {
  const checked = runId(id);
  return sendMail(ctx, checked, (client) => client.runs[verb](checked, { text: text.join(' ') }));
}

async function rename(ctx: Context, id: string, title: string[]) {
  const client = await ctx.client();
  return printRun(ctx, await client.runs.rename(runId(id), { title: title.join(' ') }));
}

async function remove(ctx: Context, id: string) {
  const client = await ctx.client();
  const answer = await client.runs.delete(runId(id));
  ctx.out.result(answer, () => `deleted ${answer.id}`);
  return EXIT.ok;
}

async function trace(ctx: Context, id: string) {
  const client = await ctx.client();
  const page = await client.runs.trace(runId(id), { limit: 200 });
  ctx.out.result(
    page,
    (colors) =>
      page.data
        .map((turn) =>
          renderEvent(
            {
              seq: 0,
              kind: 'node.turn',
              subject_id: turn.node_id,
              payload: { node_id: turn.node_id, turn },
              created_at: turn.finished_at,
            },
            colors,
          ),
        )
        .join('\n') || 'no turns',
  );
  return EXIT.ok;
}
