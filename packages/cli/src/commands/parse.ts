/**
 * `svc node parse` and `svc run parse`: create a node (or start a run) whose result must match a
 * JSON Schema, wait, and print the result itself, so a script can pipe it on (`| jq`).
 */
import type { Svc } from '@svc/client';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import type { Palette } from '../output/color.ts';
import { renderNode, renderRun, stateText } from '../output/node-view.ts';
import { parseDuration } from '../parse/duration.ts';
import { type CreateOptions, createBody, withCreateOptions } from '../parse/node-create.ts';
import { nodeId } from './shared/node-ref.ts';

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
  const client = await waiting(ctx, timeout);
  const answer = await client.nodes.parse({ ...body, ...parent, timeout_s: timeout });
  return printParsed(ctx, timeout, 'node', answer, answer.node, renderNode);
}

async function parseRun(ctx: Context, task: string[], opts: ParseOptions) {
  const { body, timeout } = parseBody(task, opts);
  const client = await waiting(ctx, timeout);
  const answer = await client.runs.parse({ ...body, timeout_s: timeout });
  return printParsed(ctx, timeout, 'run', answer, answer.run, renderRun);
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

async function waiting(ctx: Context, timeout: number): Promise<Svc> {
  const client = await ctx.client();
  if (!ctx.out.json) ctx.out.note(`waiting up to ${timeout}s for the parsed result`);
  return client;
}

/**
 * The result on stdout (the daemon's whole answer under `--json`); exit 0 only for a done
 * subject. One that ended otherwise is shown as `show` shows it; one still going is named with
 * the command that waits on.
 */
function printParsed<S extends { id: string; state: string }>(
  ctx: Context,
  timeout: number,
  kind: 'node' | 'run',
  answer: { final: boolean; parsed: unknown },
  subject: S,
  render: (subject: S, colors: Palette) => string,
): number {
  const done = answer.final && subject.state === 'done';
  ctx.out.result(answer, (colors) => {
    if (done) return JSON.stringify(answer.parsed, null, 2);
    if (answer.final) return render(subject, colors);
    return `${subject.id} is still ${stateText(subject.state, colors)} after ${timeout}s; wait on with: svc ${kind} wait ${subject.id}`;
  });
  return done ? EXIT.ok : EXIT.error;
}
