import type { ResultSubmitBody } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { settleOpenRecords } from '../nodes/final-records.ts';
import { checkSubmission } from '../nodes/outcome.ts';
import type { Node } from '../nodes/store/nodes.ts';
import { SUBMITTED, SUBMITTED_REASON } from '../ports.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';
import { settlePending } from './tool-results.ts';

type SubmitDeps = Pick<PlaneDeps, 'store' | 'events' | 'nodes'>;

/**
 * `broker.result.submit`: the node's submit tool. The submit call's own result (and the calls
 * after it, not run) are recorded with the outcome and before it, as the broker would record
 * them once answered: the outcome is the node's last event.
 */
export function submit(
  { store, events, nodes }: SubmitDeps,
  id: string,
  body: { result?: unknown; summary?: string | undefined },
): Node {
  return store.db.transaction(() => {
    let submitted = false;
    settleOpenRecords(
      store,
      events,
      id,
      (call) => {
        if (!submitted && call.name === 'submit') {
          submitted = true;
          return { status: 'ok', output: SUBMITTED, job_id: null };
        }
        const why = submitted ? `not run: ${SUBMITTED_REASON}` : 'interrupted: the node submitted';
        return { status: 'error', output: why, job_id: null };
      },
      now(),
    );
    return nodes.submit(id, body);
  });
}

/**
 * A turn's inline `submit` result (`broker.turns.record`), in the turn's transaction: the outcome
 * as `submit` records it, so the turn, the call's result and the outcome are one commit. Refused
 * (the node's output_schema), the call settles as the error the model reads, as a refused submit
 * request reads to it, and the node runs on. Checked first: inside the turn's transaction a
 * refusal thrown by `submit` would leave the calls it had settled. True when the node is done.
 */
export function submitInline(
  deps: SubmitDeps,
  id: string,
  turnIndex: number,
  callId: string,
  submission: ResultSubmitBody,
): boolean {
  try {
    checkSubmission(nodeRow(deps.store, id), submission);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    const output = `${error.code}: ${error.message}`;
    settlePending(deps, id, turnIndex, { tool_call_id: callId, status: 'error', output });
    return false;
  }
  submit(deps, id, submission);
  return true;
}
