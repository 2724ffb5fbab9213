import { NODE_STATES } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { parseDuration } from '../parse/duration.ts';
import { parseId } from '../parse/id.ts';
import { parseName } from '../parse/name.ts';
import {
  type CreateOptions,
  createBody,
  moreScopes,
  scopes,
  withCreateOptions,
} from '../parse/node-create.ts';
import { registerNodeInspect } from './node-inspect.ts';
import { registerNodeJobs } from './node-jobs.ts';
import { registerNodeSteer } from './node-steer.ts';
import { registerNodeParse } from './parse.ts';
import { parseAfter, parseLimit, parseStates } from './shared/list-options.ts';
import { NODE, nodeId, printNode } from './shared/node-ref.ts';
import { sendMail, showSubject, stopSubject, waitOn, watchSubject } from './shared/subject.ts';
import { printSubjects } from './shared/subject-table.ts';

/** `svc node wait` waits this long unless `--timeout` says otherwise. */
const DEFAULT_WAIT_S = 600;

export function registerNode(program: Command, runtime: Runtime): void {
  const node = program
    .command('node')
    .description('agents on the canvas: create, watch and steer them');

  withCreateOptions(
    node
      .command('create')
      .description('create a node with a task (queued until a broker takes it)')
      .argument('<task...>', 'the task')
      .option('--parent <node-id>', 'create it as a child of this node'),
  )
    .option('--wait', 'wait for the outcome, showing progress')
    .option('--timeout <duration>', 'with --wait: how long to wait', `${DEFAULT_WAIT_S}s`)
    .addHelpText(
      'after',
      `
Examples:
  svc node create "Summarize README.md" --wait
  svc node create "Triage the inbox" --profile researcher --max-turns 20
  svc node create "Say hello" --model scripted/demo --script turns.json --json --jq .id`,
    )
    .action(action(runtime, create));
  node
    .command('ls')
    .description('nodes, newest first')
    .option('--state <list>', `comma-separated states (${NODE_STATES.join(', ')})`)
    .option('--parent <node-id|none>', "a node's children, or roots only with 'none'")
    .option('--root <node-id>', 'every node of this tree')
    .option('--run <run-id>', "the nodes of a run's tree")
    .option('--profile <name>', 'only this profile')
    .option('--limit <n>', 'at most this many', '50')
    .addHelpText(
      'after',
      `
Examples:
  svc node ls --state running,waiting
  svc node ls --parent none --limit 10
  svc node ls --json --jq '.data[] | {id, state}'`,
    )
    .action(action(runtime, list));
  node
    .command('show')
    .description('one node')
    .argument('<id>', 'node id')
    .action(action(runtime, (ctx: Context, id: string) => showSubject(ctx, NODE, id)));
  node
    .command('watch')
    .description("print a node's events live until it is final")
    .argument('<id>', 'node id')
    .option('--subtree', "include its descendants' events")
    .option('--after <seq>', 'start after this event seq', '0')
    .action(action(runtime, watch));
  node
    .command('wait')
    .description('wait for the outcome, showing progress on stderr')
    .argument('<id>', 'node id')
    .option('--timeout <duration>', 'how long to wait', `${DEFAULT_WAIT_S}s`)
    .addHelpText(
      'after',
      `
Examples:
  svc node wait nd_01J9Z6Q3M4V8X2K7B5N0C1D2E3
  svc node wait nd_01J9Z6Q3M4V8X2K7B5N0C1D2E3 --timeout 1h --json --jq '.node.outcome.result'`,
    )
    .action(action(runtime, wait));
  node
    .command('message')
    .description('send mail (read at its next turn; a waiting node wakes)')
    .argument('<id>', 'node id')
    .argument('<text...>', 'the message')
    .action(action(runtime, message));
  for (const verb of ['cancel', 'interrupt'] as const) {
    node
      .command(verb)
      .description(
        verb === 'cancel'
          ? 'cancel a node and its children'
          : 'stop the turn in flight; the node waits for a message',
      )
      .argument('<id>', 'node id')
      .option('--reason <text>', 'why (shown as its state reason)')
      .action(
        action(runtime, (ctx: Context, id: string, opts: { reason?: string }) =>
          stopSubject(ctx, NODE, verb, id, opts),
        ),
      );
  }
  node
    .command('fork')
    .description("copy a node's conversation into a new queued node")
    .argument('<id>', 'node id')
    .option('--task <text>', 'delivered to the copy as mail')
    .option('--title <text>', 'title of the copy')
    .option('--through-turn <n>', 'copy turns 1..n (default all; 0 = only the task)')
    .option('--parent <node-id|none>', "the copy's parent (default the source's; 'none': a root)")
    .option('--scopes <list>', "narrow the source's scopes", moreScopes)
    .action(action(runtime, fork));
  node
    .command('revive')
    .description('queue a failed or cancelled node again with its history')
    .argument('<id>', 'node id')
    .option('--message <text>', 'mail delivered when it resumes')
    .action(action(runtime, revive));
  node
    .command('promote')
    .description('detach a child into a root of its own tree')
    .argument('<id>', 'node id')
    .action(action(runtime, promote));
  node
    .command('demote')
    .description('attach a root under a parent')
    .argument('<id>', 'node id')
    .requiredOption('--parent <node-id>', 'the new parent')
    .action(action(runtime, demote));
  node
    .command('recycle')
    .description('give a done node a fresh task, keeping its id, profile and history')
    .argument('<id>', 'node id')
    .argument('<task...>', 'the new task')
    .action(action(runtime, recycle));
  registerNodeSteer(node, runtime);
  registerNodeInspect(node, runtime);
  registerNodeParse(node, runtime);
  registerNodeJobs(node, runtime);
  const worktree = node
    .command('worktree')
    .description("a final node's working directory: remove it");
  worktree
    .command('close')
    .description('remove it when it holds nothing (refused while it holds files)')
    .argument('<id>', 'node id')
    .action(action(runtime, (ctx: Context, id: string) => removeWorktree(ctx, id, 'close')));
  worktree
    .command('abandon')
    .description('remove it with everything in it')
    .argument('<id>', 'node id')
    .action(action(runtime, (ctx: Context, id: string) => removeWorktree(ctx, id, 'abandon')));
}

async function create(
  ctx: Context,
  task: string[],
  opts: CreateOptions & { parent?: string; wait?: boolean; timeout: string },
) {
  const body = createBody(task, opts);
  if (opts.parent !== undefined) body.parent_id = nodeId(opts.parent, '--parent');
  const timeout = parseDuration(opts.timeout, '--timeout');
  const client = await ctx.client();
  const created = await client.nodes.create(body);
  if (!opts.wait) return printNode(ctx, created);
  if (!ctx.out.json) ctx.out.note(`created ${created.id}; waiting for its outcome`);
  return waitOn(ctx, NODE, created.id, timeout);
}

async function list(
  ctx: Context,
  opts: {
    state?: string;
    parent?: string;
    root?: string;
    run?: string;
    profile?: string;
    limit: string;
  },
) {
  const states = parseStates(opts.state);
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.nodes.list({
    ...(states && { state: states }),
    ...(opts.parent !== undefined && {
      parent_id: opts.parent === 'none' ? 'none' : nodeId(opts.parent, '--parent'),
    }),
    ...(opts.root !== undefined && { root_id: nodeId(opts.root, '--root') }),
    ...(opts.run !== undefined && { run_id: parseId('run', opts.run, '--run') }),
    ...(opts.profile !== undefined && { profile: parseName(opts.profile, '--profile') }),
    limit,
  });
  return printSubjects(ctx, page, { header: 'PARENT', value: (n) => n.parent_id ?? '-' });
}

async function watch(ctx: Context, id: string, opts: { subtree?: boolean; after: string }) {
  const checked = nodeId(id);
  const after = parseAfter(opts.after);
  return watchSubject(ctx, NODE, checked, { after, subtree: opts.subtree === true });
}

async function wait(ctx: Context, id: string, opts: { timeout: string }) {
  return waitOn(ctx, NODE, nodeId(id), parseDuration(opts.timeout, '--timeout'));
}

async function message(ctx: Context, id: string, text: string[]) {
  const checked = nodeId(id);
  return sendMail(ctx, checked, (client) =>
    client.nodes.message(checked, { text: text.join(' ') }),
  );
}

async function fork(
  ctx: Context,
  id: string,
  opts: { task?: string; title?: string; throughTurn?: string; parent?: string; scopes?: string },
) {
  const checked = nodeId(id);
  const through = opts.throughTurn;
  if (through !== undefined && !/^\d{1,9}$/.test(through)) {
    throw new UsageError(
      `--through-turn must be a whole number (0 or more); received '${through}'`,
    );
  }
  const client = await ctx.client();
  const copy = await client.nodes.fork(checked, {
    ...(opts.task !== undefined && { task: opts.task }),
    ...(opts.title !== undefined && { title: opts.title }),
    ...(through !== undefined && { through_turn: Number(through) }),
    ...(opts.parent !== undefined && {
      parent_id: opts.parent === 'none' ? null : nodeId(opts.parent, '--parent'),
    }),
    ...(opts.scopes !== undefined && { scopes: scopes(opts.scopes) }),
  });
  return printNode(ctx, copy);
}

async function revive(ctx: Context, id: string, opts: { message?: string }) {
  const client = await ctx.client();
  return printNode(
    ctx,
    await client.nodes.revive(
      nodeId(id),
      opts.message === undefined ? {} : { message: opts.message },
    ),
  );
}

async function promote(ctx: Context, id: string) {
  const client = await ctx.client();
  return printNode(ctx, await client.nodes.promote(nodeId(id)));
}

async function demote(ctx: Context, id: string, opts: { parent: string }) {
  const parent = nodeId(opts.parent, '--parent');
  const client = await ctx.client();
  return printNode(ctx, await client.nodes.demote(nodeId(id), { parent_id: parent }));
}

async function removeWorktree(ctx: Context, id: string, how: 'close' | 'abandon') {
  const client = await ctx.client();
  const removed = await client.nodes.worktree[how](nodeId(id));
  ctx.out.result(removed, () =>
    removed.removed
      ? `removed ${removed.path}`
      : `no worktree at ${removed.path}: nothing to remove`,
  );
  return EXIT.ok;
}

async function recycle(ctx: Context, id: string, task: string[]) {
  const client = await ctx.client();
  return printNode(ctx, await client.nodes.recycle(nodeId(id), { task: task.join(' ') }));
}
