import { settleOpenRecords } from '../nodes/final-records.ts';
import type { Node } from '../nodes/store/nodes.ts';
import { SUBMITTED, SUBMITTED_REASON } from '../ports.ts';
import { now, type PlaneDeps } from './deps.ts';

/**
 * `broker.result.submit`: the node's submit tool. The submit call's own result (and the calls
 * after it, not run) are recorded with the outcome and before it, as the broker would record
 * them once answered: the outcome is the node's last event.
 */
export function submit(
  { store, events, nodes }: Pick<PlaneDeps, 'store' | 'events' | 'nodes'>,
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
