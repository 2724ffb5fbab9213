/**
 * `svc node parse` and `svc run parse`: create a node (or start a run) whose result must match a
 * JSON Schema, wait, and print the result itself, so a script can pipe it on (`| jq`).
 */
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import type { Palette } from '../output/color.ts';
import { renderNode, renderRun } from '../output/node-view.ts';
import { parseDuration } from '../parse/duration.ts';
import { type CreateOptions, createBody, withCreateOptions } from '../parse/node-create.ts';
import { NODE, nodeId } from './shared/node-ref.ts';
import { RUN } from './shared/run-ref.ts';
import { waitTarget } from './shared/subject.ts';
import { waitWithProgress } from './shared/wait-progress.ts';

/** As `svc node wait`: the parse waits this long unless `--timeout` says otherwise. */
const DEFAULT_WAIT_S = 600;

type ParseOptions = CreateOptions & { timeout: string; parent?: string };

export function registerNodeParse(node: Command, runtime: Runtime): void {
  parseCommand(node, 'create a node whose result must match --output-schema; print the result')
    .option('--parent <node-id>', 'create it as a child of this node')
    .action(action(runtime, parseNode));
}

export function registerRunParse(run: Command, runtime: Runtime): void {
  parseCommand(run, 'start a run whose result must match --output-schema; print the result').action(
    action(runtime, parseRun),
  );
}

function parseCommand(parent: Command, description: string): Command {
  return withCreateOptions(
    parent.command('parse').description(description).argument('<task...>', 'the task'),
  ).option('--timeout <duration>', 'how long to wait', `${DEFAULT_WAIT_S}s`);
}

async function parseNode(ctx: Context, task: string[], opts: ParseOptions) {
  const { body, timeout } = parseBody(task, opts);
  const parent = opts.parent === undefined ? {} : { parent_id: nodeId(opts.parent, '--parent') };
  const client = await ctx.client();
  // Created first, then waited on as `node wait` does: progress, and an early stop when the
  // node cannot end without someone acting. The answer keeps the daemon's parse shape.
  const node = await client.nodes.create({ ...body, ...parent });
  if (!ctx.out.json) ctx.out.note(`created ${node.id}; waiting up to ${timeout}s for its result`);
  const target = waitTarget(NODE, node.id, timeout);
  return waitWithProgress(ctx, node.id, timeout, {
    ...target,
    print: (c, answer, subject) =>
      printParsed(c, { ...answer, parsed: parsedOf(subject) }, subject, renderNode),
  });
}

async function parseRun(ctx: Context, task: string[], opts: ParseOptions) {
  const { body, timeout } = parseBody(task, opts);
  const client = await ctx.client();
  const run = await client.runs.start(body);
  if (!ctx.out.json) ctx.out.note(`started ${run.id}; waiting up to ${timeout}s for its result`);
  const target = waitTarget(RUN, run.id, timeout);
  return waitWithProgress(ctx, run.id, timeout, {
    ...target,
    print: (c, answer, subject) =>
      printParsed(c, { ...answer, parsed: parsedOf(subject) }, subject, renderRun),
  });
}

/** The structured result of a done node or run (as the daemon's parse answers it), else null. */
function parsedOf(subject: { state: string; outcome: { result: unknown } | null }): unknown {
  return subject.state === 'done' ? (subject.outcome?.result ?? null) : null;
}

/** The create body with its required schema, checked before anything is sent. */
function parseBody(task: string[], opts: ParseOptions) {
  if (opts.outputSchema === undefined) {
    throw new UsageError(
      'parse needs --output-schema <file>, the JSON Schema the result must match',
    );
  }
  const body = createBody(task, opts);
  return {
    body: { ...body, output_schema: body.output_schema ?? {} },
    timeout: parseDuration(opts.timeout, '--timeout'),
  };
}

/**
 * A final answer: the result on stdout (the whole `{final, node|run, parsed}` under `--json`);
 * exit 0 only for a done subject, one that ended otherwise shown as `show` shows it. A wait that
 * ran out, or stopped early, is printed by `waitWithProgress`.
 */
function printParsed<S extends { id: string; state: string }>(
  ctx: Context,
  answer: { final: boolean; parsed: unknown },
  subject: S,
  render: (subject: S, colors: Palette) => string,
): number {
  const done = answer.final && subject.state === 'done';
  ctx.out.result(answer, (colors) =>
    done ? JSON.stringify(answer.parsed, null, 2) : render(subject, colors),
  );
  return done ? EXIT.ok : EXIT.error;
}
