import { exhaustedBudget } from '@svc/protocol';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import type { AfterCommit } from '../ports.ts';
import type { PlaneDeps } from './deps.ts';

/**
 * Parks a running node whose budget is reached once nothing of its last turn is pending: the
 * broker's next step would be a model call past the budget. So the turn that reaches a budget
 * still runs its tools, `submit` included.
 */
export function parkIfSpent(
  { store, nodes }: Pick<PlaneDeps, 'store' | 'nodes'>,
  node: NodeRow,
  afterCommit: AfterCommit,
): void {
  if (node.state !== 'running') return;
  const { budgets, usage } = toNode(node);
  const over = exhaustedBudget(budgets, usage);
  if (over === null) return;
  const last = store.turns.get(node.id, store.turns.lastIndex(node.id));
  if (last?.tool_calls.some((c) => c.status === 'pending')) return;
  const waitingOn = { for: 'budget', budget: over.budget } as const;
  nodes.move(node, 'budget_exhausted', { reason: over.reason, waitingOn }, afterCommit);
}
