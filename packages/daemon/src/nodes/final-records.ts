/**
 * What a node leaves open when it becomes final, settled in the transaction that makes it so and
 * before its outcome: the pending tool calls of its last turn and its running jobs. A node's
 * stream ends once the node is final and its events are sent (docs/nodes.md "Events"), so a
 * record its broker makes after the outcome (the submit call's own result, what a cancel cut
 * short, the jobs its exit ends) would come after the stream has closed and be missed. Settled
 * here, the broker's later record of the same call or job is a repeat that appends nothing, and
 * the outcome stays the node's last event.
 */

import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import type { ToolResult } from './store/turns.ts';

/** How a call still pending is settled: by its id, else with `output` as an error. */
export type PendingResult = (call: { id: string; name: string }) => Omit<ToolResult, 'finished_at'>;

export function settleOpenRecords(
  store: Store,
  events: Pick<EventLog, 'record'>,
  nodeId: string,
  resultOf: PendingResult,
  at: string,
): void {
  const last = store.turns.get(nodeId, store.turns.lastIndex(nodeId));
  for (const call of last?.tool_calls ?? []) {
    if (call.status !== 'pending' || last === undefined) continue;
    const result = { ...resultOf(call), finished_at: at };
    if (!store.turns.settleToolCall(nodeId, call.id, result)) continue;
    const tool_call = { ...call, ...result };
    events.record('node.tool', nodeId, { node_id: nodeId, turn_index: last.index, tool_call });
  }
  for (const jobId of store.jobs.running(nodeId)) {
    const end = { state: 'cancelled', exit_code: null, finished_at: at } as const;
    const job = store.jobs.settle(nodeId, jobId, end);
    if (job !== undefined) events.record('node.job', nodeId, { node_id: nodeId, job });
  }
}

/** Every pending call settled as an error saying why it never finished. */
export function interrupted(why: string): PendingResult {
  return () => ({ status: 'error', output: `interrupted: ${why}`, job_id: null });
}
