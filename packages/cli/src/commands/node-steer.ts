/** `svc node update|result|relaunch-root|revive-all`: change a node, end it, restart its tree. */
import { resultSubmitBodySchema } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderTable } from '../output/table.ts';
import { readBody } from '../parse/body.ts';
import { collect } from '../parse/node-create.ts';
import { type UpdateOptions, updateBody } from '../parse/node-update.ts';
import { nodeId, printNode } from './shared/node-ref.ts';

/** The states `revive-all` takes (`nodes.reviveAll`); the daemon's default is failed only. */
const REVIVABLE = ['failed', 'cancelled'] as const;
type Revivable = (typeof REVIVABLE)[number];

export function registerNodeSteer(node: Command, runtime: Runtime): void {
  node
    .command('update')
    .description(
      'change title, budgets or labels (raising the budget a node is parked at wakes it)',
    )
    .argument('<id>', 'node id')
    .option('--title <text>', 'the new title')
    .option('--max-turns <n|none>', "turn budget ('none' removes it)")
    .option('--max-tokens <n|none>', "token budget, input plus output ('none' removes it)")
    .option('--max-cost-usd <usd|none>', "cost budget ('none' removes it)")
    .option('--label <key=value>', 'a label; repeat it for more; replaces all labels', collect, [])
    .option('--clear-labels', 'remove every label')
    .action(action(runtime, update));
  node
    .command('result')
    .description('submit the outcome from outside: the node is done and its broker stopped')
    .argument('<id>', 'node id')
    .option('--summary <text>', 'the text summary')
    .option('--data <json|@file|->', 'the result: inline JSON, @file or - (stdin)')
    .action(action(runtime, result));
  node
    .command('relaunch-root')
    .description("restart the broker of the node's root from its last recorded turn")
    .argument('<id>', 'node id (any node of the tree)')
    .action(action(runtime, relaunchRoot));
  node
    .command('revive-all')
    .description('queue every failed node again with its history (owner only)')
    .option('--state <list>', `comma-separated: ${REVIVABLE.join(', ')} (default failed)`)
    .option('--root <node-id>', 'only this tree')
    .action(action(runtime, reviveAll));
}

async function update(ctx: Context, id: string, opts: UpdateOptions) {
  const checked = nodeId(id);
  const body = updateBody(opts);
  const client = await ctx.client();
  return printNode(ctx, await client.nodes.update(checked, body));
}

async function result(ctx: Context, id: string, opts: { summary?: string; data?: string }) {
  const checked = nodeId(id);
  if (opts.summary === undefined && opts.data === undefined) {
    throw new UsageError('give --summary, --data or both');
  }
  const body = {
    ...(opts.summary !== undefined && { summary: opts.summary }),
    ...(opts.data !== undefined && { result: await readBody(opts.data) }),
  };
  // The daemon's own schema, so a summary too long is a usage error here.
  const issue = resultSubmitBodySchema.safeParse(body).error?.issues[0];
  if (issue !== undefined)
    throw new UsageError(`--${issue.path[0] === 'result' ? 'data' : 'summary'}: ${issue.message}`);
  const client = await ctx.client();
  return printNode(ctx, await client.nodes.result.submit(checked, body));
}

async function relaunchRoot(ctx: Context, id: string) {
  const checked = nodeId(id);
  const client = await ctx.client();
  return printNode(ctx, await client.nodes.relaunchRoot(checked));
}

async function reviveAll(ctx: Context, opts: { state?: string; root?: string }) {
  const states = opts.state?.split(',');
  for (const s of states ?? []) {
    if (!(REVIVABLE as readonly string[]).includes(s)) {
      throw new UsageError(`--state must be among ${REVIVABLE.join(', ')}; received '${s}'`);
    }
  }
  const root = opts.root === undefined ? undefined : nodeId(opts.root, '--root');
  const client = await ctx.client();
  const answer = await client.nodes.reviveAll({
    ...(states !== undefined && { states: states as Revivable[] }),
    ...(root !== undefined && { root_id: root }),
  });
  // The answer holds ids only: `svc node show ID` has the rest.
  ctx.out.result(answer, (colors) =>
    answer.count === 0
      ? `no ${(states ?? ['failed']).join(' or ')} nodes to revive`
      : renderTable(answer.node_ids, [{ header: 'ID', value: (n) => n }], colors),
  );
  return EXIT.ok;
}
