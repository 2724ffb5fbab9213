/**
 * Budgets per node: `max_turns`, `max_tokens` (input plus output), `max_cost_usd`. A reached
 * budget parks the node `waiting` (with the reason below as its `state_reason`, until
 * `nodes.update` raises the limit) once the next turn would go past it: the daemon checks when
 * nothing of the last turn is pending any more, so the turn that reaches a budget runs its calls.
 */
import type { z } from 'zod';
import type { budgetsSchema, usageSchema } from '../schemas/nodes.ts';

export type Budgets = z.output<typeof budgetsSchema>;
export type Usage = z.output<typeof usageSchema>;
export type BudgetName = keyof Budgets;

/** A node created without budgets (and whose profile sets none) stops after this many turns. */
export const DEFAULT_BUDGETS: Readonly<Budgets> = Object.freeze({
  max_turns: 100,
  max_tokens: null,
  max_cost_usd: null,
});

/** Fills what `input` leaves out from `base`; an explicit `null` removes that limit. */
export function mergeBudgets(
  base: Readonly<Budgets>,
  input: { readonly [K in BudgetName]?: number | null | undefined } | undefined,
): Budgets {
  return {
    max_turns: input?.max_turns === undefined ? base.max_turns : input.max_turns,
    max_tokens: input?.max_tokens === undefined ? base.max_tokens : input.max_tokens,
    max_cost_usd: input?.max_cost_usd === undefined ? base.max_cost_usd : input.max_cost_usd,
  };
}

/** The first budget `usage` has reached, with a sentence a person can act on; `null` if none. */
export function exhaustedBudget(
  budgets: Readonly<Budgets>,
  usage: Readonly<Usage>,
): { budget: BudgetName; reason: string } | null {
  const tokens = usage.input_tokens + usage.output_tokens;
  const checks: [BudgetName, number, number | null, string][] = [
    ['max_turns', usage.turns, budgets.max_turns, 'turns'],
    ['max_tokens', tokens, budgets.max_tokens, 'tokens'],
    ['max_cost_usd', usage.cost_usd, budgets.max_cost_usd, 'USD'],
  ];
  for (const [budget, used, limit, unit] of checks) {
    if (limit !== null && used >= limit) {
      const shown =
        unit === 'USD' ? `${used.toFixed(4)} of ${limit} USD` : `${used} of ${limit} ${unit}`;
      return {
        budget,
        reason: `budget reached: ${shown} used (${budget}); raise it with nodes.update to continue`,
      };
    }
  }
  return null;
}
