/**
 * The options of `svc node update`: the `PATCH /v1/nodes/{id}` body (title, budgets, labels)
 * from flags, checked with the daemon's own schema before anything is sent.
 */
import type { Svc } from '@svc/client';
import { nodeUpdateBodySchema } from '@svc/protocol';
import { UsageError } from '../errors.ts';
import { labels } from './node-create.ts';
import { positive } from './number.ts';

export type NodeUpdateBody = Parameters<Svc['nodes']['update']>[1];

export interface UpdateOptions {
  title?: string;
  maxTurns?: string;
  maxTokens?: string;
  maxCostUsd?: string;
  label: string[];
  clearLabels?: boolean;
}

/** The flags that change something, named in the refusal of an update without any. */
const UPDATE_FLAGS =
  '--title, --max-turns, --max-tokens, --max-cost-usd, --label or --clear-labels';

/** The update body of `opts`; no flag, or a bad value, is a usage error. */
export function updateBody(opts: UpdateOptions): NodeUpdateBody {
  const body: NodeUpdateBody = {};
  if (opts.title !== undefined) body.title = opts.title;
  const budgets: NonNullable<NodeUpdateBody['budgets']> = {};
  if (opts.maxTurns !== undefined) budgets.max_turns = limit(opts.maxTurns, '--max-turns', true);
  if (opts.maxTokens !== undefined)
    budgets.max_tokens = limit(opts.maxTokens, '--max-tokens', true);
  if (opts.maxCostUsd !== undefined)
    budgets.max_cost_usd = limit(opts.maxCostUsd, '--max-cost-usd', false);
  if (Object.keys(budgets).length > 0) body.budgets = budgets;
  if (opts.clearLabels && opts.label.length > 0) {
    throw new UsageError('--clear-labels removes every label; it cannot go with --label');
  }
  if (opts.clearLabels) body.metadata = {};
  if (opts.label.length > 0) body.metadata = labels(opts.label);
  if (Object.keys(body).length === 0)
    throw new UsageError(`nothing to update: give ${UPDATE_FLAGS}`);
  const checked = nodeUpdateBodySchema.safeParse(body);
  const issue = checked.error?.issues[0];
  if (issue !== undefined) {
    const [field, ...rest] = issue.path.map(String);
    const flag =
      field === 'budgets' ? `--${(rest.shift() ?? '').replaceAll('_', '-')}` : FLAG_OF[field ?? ''];
    throw new UsageError(`${[flag ?? field, ...rest].join('.')}: ${issue.message}`);
  }
  return body;
}

const FLAG_OF: Readonly<Record<string, string>> = { title: '--title', metadata: '--label' };

/** A budget flag: a positive number, or `none` to remove the limit. */
function limit(value: string, flag: string, integer: boolean): number | null {
  if (value === 'none') return null;
  try {
    return positive(value, flag, integer);
  } catch {
    throw new UsageError(
      `${flag} must be a positive ${integer ? 'whole ' : ''}number, or 'none' to remove the limit; received '${value}'`,
    );
  }
}
