/**
 * A node's outcome: read once it is final (`nodes.outcome`), and recorded by a submitted result
 * (`nodes.result.submit`, or the node's own submit tool), checked against its `output_schema`.
 */
import { transition } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { NodeDeps } from './deps.ts';
import { type MoveDeps, move } from './move.ts';
import { compileOutputSchema } from './output-schema.ts';
import type { Node, NodeRow, Outcome } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, seenNode } from './visibility.ts';

export interface SubmitBody {
  result?: unknown;
  summary?: string | undefined;
}

export function outcomeOf(deps: Pick<NodeDeps, 'store'>, id: string, caller: Caller): Outcome {
  const node = toNode(seenNode(deps.store, caller.sight, id));
  if (node.outcome === null) {
    throw new ApiError(
      'invalid_state',
      `node is '${node.state}'; an outcome exists once it is done, failed or cancelled`,
    );
  }
  return node.outcome;
}

/** Records a result (from outside, or the node's submit tool); checks `output_schema`. */
export function submitResult(deps: MoveDeps, id: string, body: SubmitBody): Node {
  return deps.store.db.transaction((afterCommit) => {
    const row = deps.store.nodes.get(id);
    if (row === undefined) throw new ApiError('not_found', `no node ${id}`, { field: 'id' });
    checkSubmission(row, body);
    const outcome = { result: body.result ?? null, summary: body.summary ?? null, error: null };
    return toNode(move(deps, row, 'submit', { outcome }, afterCommit));
  });
}

/**
 * Throws why `row` may not take `body` as its outcome: its state, or its `output_schema`. Reads
 * only, so a caller may check before it writes anything else (a turn's inline submit).
 */
export function checkSubmission(row: NodeRow, body: SubmitBody): void {
  const allowed = transition(row.state, 'submit');
  if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
  if (row.output_schema === null) return;
  if (body.result === undefined) {
    throw new ApiError(
      'validation_failed',
      'this node has an output_schema: submit a result matching it',
      { field: 'result' },
    );
  }
  compileOutputSchema(row.output_schema)(body.result);
}

/**
 * `nodes.result.submit` from outside: the result, then the node's broker stopped with every
 * process it started: its work is over, and it would hold a slot until its tools ended.
 */
export async function submitFromOutside(
  deps: MoveDeps,
  id: string,
  body: SubmitBody,
  caller: Caller,
): Promise<Node> {
  seenNode(deps.store, caller.sight, id);
  const done = submitResult(deps, id, body);
  await deps.runtime().stop(id, 'cancel');
  return done;
}
