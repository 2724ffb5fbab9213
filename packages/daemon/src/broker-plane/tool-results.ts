import type { ToolCall, ToolResultBody } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';
import { directiveOf } from './directive.ts';
import { settleJob, startJob } from './jobs.ts';
import { claimNextMail } from './mail.ts';
import { parkIfSpent } from './park.ts';

/**
 * `broker.toolResults.record`: settles a pending call once; a repeat answers the record. Any
 * state takes it: the `submit` call's own result comes after its node is `done`, and a stopped
 * broker settles what it cut short. The last result of a turn at a budget parks. With it, in the
 * one transaction: the end of the call's job (`job_end`), the report the call makes (`report`,
 * so exactly once: a repeat makes none) and, for a broker that goes on, the start of its next
 * call's job (`next_job`) or the claim of its next turn's mail (`claim_mail`): a turn's overhead
 * is its round trips, so what a record implies rides along.
 */
export function recordToolResult(
  deps: Pick<PlaneDeps, 'store' | 'events' | 'nodes'>,
  id: string,
  body: ToolResultBody,
) {
  const { store } = deps;
  if (body.job_end !== undefined && body.job_id === undefined) {
    throw new ApiError('invalid_request', '`job_end` settles the job named by `job_id`', {
      field: 'job_end',
    });
  }
  return store.db.transaction((afterCommit) => {
    const node = nodeRow(store, id);
    const call = store.turns.toolCall(id, body.tool_call_id);
    if (call === undefined || call.turn_index !== body.turn_index) {
      throw new ApiError(
        'not_found',
        `turn ${body.turn_index} of ${id} has no tool call ${body.tool_call_id}`,
        { field: 'tool_call_id' },
      );
    }
    // Settling the job found it (or threw): no second look for it below.
    const ended = body.job_id !== undefined && body.job_end !== undefined;
    if (ended) settleJob(deps, id, body.job_id!, body.job_end!, 'job_id');
    let settled: ToolCall;
    if (call.status === 'pending') {
      if (body.job_id !== undefined && !ended && store.jobs.get(id, body.job_id) === undefined) {
        throw new ApiError('not_found', `${id} has no job ${body.job_id}`, { field: 'job_id' });
      }
      settled = settlePending(deps, id, body.turn_index, body);
      parkIfSpent(deps, node, afterCommit);
    } else {
      // A repeat: the call as read above is the record.
      const { turn_index: _, ...recorded } = call;
      settled = recorded;
    }
    const directive = directiveOf(store, node);
    if (directive.action !== 'continue') return { tool_call: settled, directive };
    const job =
      body.next_job !== undefined && call.status === 'pending'
        ? startJob(deps, id, body.next_job)
        : undefined;
    return {
      tool_call: settled,
      directive,
      ...(body.claim_mail === true && { mail: claimNextMail(store, id) }),
      ...(job !== undefined && { job }),
    };
  });
}

/**
 * Settles pending call `result.tool_call_id` of turn `turnIndex` with the report it makes and
 * their events, in the caller's transaction (a tool result's record, or a turn's with `results`);
 * answers the settled call.
 */
export function settlePending(
  { store, events }: Pick<PlaneDeps, 'store' | 'events'>,
  id: string,
  turnIndex: number,
  result: Pick<ToolResultBody, 'tool_call_id' | 'status' | 'output' | 'job_id' | 'report'>,
): ToolCall {
  store.turns.settleToolCall(id, result.tool_call_id, {
    status: result.status,
    output: result.output ?? null,
    job_id: result.job_id ?? null,
    finished_at: now(),
  });
  if (result.report !== undefined) {
    const { text, data } = result.report;
    const report = store.reports.insert(id, text, data ?? null, now());
    events.record('node.report', id, { node_id: id, report });
  }
  const { turn_index: _, ...tool_call } = store.turns.toolCall(id, result.tool_call_id)!;
  events.record('node.tool', id, { node_id: id, turn_index: turnIndex, tool_call });
  return tool_call;
}
