import type { Node } from '@svc/protocol';
import type { NodeRow } from './nodes.ts';

/** The wire form of a node row. */
export function toNode(row: NodeRow): Node {
  return {
    id: row.id,
    parent_id: row.parent_id,
    root_id: row.root_id,
    run_id: row.run_id,
    app_id: row.app_id,
    profile: row.profile,
    title: row.title,
    task: row.task,
    state: row.state,
    state_reason: row.state_reason,
    waiting_on: row.waiting_on,
    scopes: row.scopes,
    model: { provider: row.model.provider, model: row.model.model },
    budgets: row.budgets,
    usage: {
      turns: row.turns,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cost_usd: row.cost_usd,
    },
    outcome: row.outcome,
    output_schema: row.output_schema,
    metadata: row.metadata,
    workspace: row.workspace,
    ...(row.network !== null && { network: row.network }),
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
