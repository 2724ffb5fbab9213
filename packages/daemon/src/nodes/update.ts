/**
 * `nodes.update` (title, metadata, budgets) and `nodes.recycle` (a done node takes a fresh task):
 * changes to a node's own fields.
 */
import {
  type Budgets,
  exhaustedBudget,
  mergeBudgets,
  type nodeRecycleBodySchema,
  type nodeUpdateBodySchema,
  transition,
} from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { requireWithinCeiling } from './ceiling.ts';
import { titleOf } from './create.ts';
import { now } from './deps.ts';
import { postMail, sender } from './mail.ts';
import { type MoveDeps, move } from './move.ts';
import type { Node } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, seenNode } from './visibility.ts';

export type UpdateBody = z.output<typeof nodeUpdateBodySchema>;
export type RecycleBody = z.output<typeof nodeRecycleBodySchema>;

export function updateNode(deps: MoveDeps, id: string, body: UpdateBody, caller: Caller): Node {
  return deps.store.db.transaction((afterCommit) => {
    const row = seenNode(deps.store, caller.sight, id);
    const changes: Record<string, unknown> = {};
    if (body.title !== undefined) row.title = changes.title = body.title;
    if (body.metadata !== undefined) row.metadata = changes.metadata = body.metadata;
    let budgets: Budgets | undefined;
    if (body.budgets !== undefined) {
      budgets = mergeBudgets(row.budgets, body.budgets);
      row.budgets = changes.budgets = budgets;
    }
    row.updated_at = now();
    deps.store.nodes.save(row);
    deps.events.record('node.updated', id, { node_id: id, changes });
    // Raising the budget a node is parked at is the way on (docs/nodes.md "Budgets").
    if (budgets !== undefined && row.state === 'waiting' && row.waiting_on?.for === 'budget') {
      if (exhaustedBudget(budgets, toNode(row).usage) === null) {
        move(deps, row, 'wake', {}, afterCommit);
      }
    }
    return toNode(row);
  });
}

/** A done node takes a fresh task, delivered as mail; usage starts again from zero. */
export function recycleNode(deps: MoveDeps, id: string, body: RecycleBody, caller: Caller): Node {
  return deps.store.db.transaction((afterCommit) => {
    const row = seenNode(deps.store, caller.sight, id);
    requireWithinCeiling(row, caller.principal);
    const allowed = transition(row.state, 'recycle');
    if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
    row.task = body.task;
    row.title = body.title ?? titleOf(body.task);
    row.budgets = mergeBudgets(row.budgets, body.budgets);
    row.turns = row.input_tokens = row.output_tokens = row.cost_usd = 0;
    move(deps, row, 'recycle', {}, afterCommit);
    postMail(deps, row, sender(caller.principal), body.task);
    return toNode(row);
  });
}
