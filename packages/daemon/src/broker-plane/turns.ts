import { createHash } from 'node:crypto';
import type { Directive, Mail, TurnRecordBody } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Job } from '../nodes/store/jobs.ts';
import type { Turn } from '../nodes/store/turns.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';
import { directiveOf } from './directive.ts';
import { startJob } from './jobs.ts';
import { claimNextMail } from './mail.ts';
import { parkIfSpent } from './park.ts';
import { submitInline } from './submit.ts';
import { settlePending } from './tool-results.ts';

/**
 * `broker.turns.record`: the next turn, before its calls run. A turn's `index` must be the next
 * one; the last recorded index again with the same body (by fingerprint) answers the recorded
 * turn, anything else is 409 `conflict`, so a retried record never doubles a turn. A turn without
 * calls that reaches a budget parks the node; one with calls parks it once their results are in.
 * `next_job` starts the job its first call runs as, when that call may run (`continue`); a repeat
 * starts none. `results` settle calls whose whole effect is a record of the daemon's (a report,
 * a submit) in the same transaction, so such a turn costs one request: the record and the act
 * are one commit, and `claim_mail` then claims the next turn's mail as a last result would. An
 * accepted submit ends the node with its turn: the answer's directive is then `cancel`, and the
 * submit call's result is how the broker tells that it submitted.
 */
export function recordTurn(
  deps: Pick<PlaneDeps, 'store' | 'events' | 'nodes'>,
  id: string,
  body: TurnRecordBody,
): { turn: Turn; directive: Directive; job?: Job; mail?: Mail[] } {
  const { store, events } = deps;
  // The job asked for is no part of the turn: a retry that asks again is the same turn.
  const { next_job, ...turnBody } = body;
  checkResults(body);
  const fingerprint = createHash('sha256').update(JSON.stringify(turnBody)).digest('hex');
  return store.db.transaction((afterCommit) => {
    const node = nodeRow(store, id);
    // One read for the usual record (the next index); an earlier one's retry reads its own.
    const last = store.turns.last(id);
    const recorded =
      body.index === last.index
        ? last.fingerprint
        : body.index < last.index
          ? store.turns.fingerprint(id, body.index)
          : undefined;
    if (recorded !== undefined) {
      if (recorded !== fingerprint) {
        throw new ApiError('conflict', `turn ${body.index} is already recorded with another body`, {
          field: 'index',
        });
      }
      return { turn: store.turns.get(id, body.index)!, directive: directiveOf(store, node) };
    }
    if (node.state !== 'running') {
      throw new ApiError(
        'invalid_state',
        `node is '${node.state}'; turns are recorded only while it runs`,
      );
    }
    const next = last.index + 1;
    if (body.index !== next) {
      throw new ApiError('conflict', `the next turn of ${id} is ${next}, not ${body.index}`, {
        field: 'index',
        received: body.index,
      });
    }
    for (const call of body.tool_calls) {
      if (store.turns.toolCall(id, call.id) !== undefined) {
        throw new ApiError('conflict', `tool call ${call.id} is already recorded for ${id}`, {
          field: 'tool_calls',
        });
      }
    }
    const turn = store.turns.insert({
      node_id: id,
      index: body.index,
      model: body.model,
      input: body.input.map((m) => ({ role: m.role, text: m.text, mail_seq: m.mail_seq ?? null })),
      text: body.text,
      tool_calls: body.tool_calls.map((c) => ({
        id: c.id,
        name: c.name,
        input: c.input ?? null,
        error: c.error,
      })),
      usage: body.usage,
      cost_usd: body.cost_usd,
      finish_reason: body.finish_reason,
      started_at: body.started_at,
      finished_at: body.finished_at,
      fingerprint,
    });
    node.turns += 1;
    node.input_tokens += body.usage.input_tokens;
    node.output_tokens += body.usage.output_tokens;
    node.cost_usd += body.cost_usd ?? 0;
    node.updated_at = now();
    store.nodes.saveUsage(node);
    // Progress: the relaunch budget starts over.
    store.brokers.resetFaults(id);
    // Its mail is in a recorded turn now: acknowledged with it, not in a request of its own.
    const seqs = turn.input.flatMap((m) => (m.mail_seq === null ? [] : [m.mail_seq]));
    if (seqs.length > 0) store.mail.acknowledge(id, seqs, now());
    events.record('node.turn', id, { node_id: id, turn });
    let submitted = false;
    for (const result of body.results ?? []) {
      // After an accepted submit the rest are settled, as not run, with the outcome.
      if (submitted) break;
      if (result.submit === undefined) settlePending(deps, id, body.index, result);
      else submitted = submitInline(deps, id, body.index, result.tool_call_id, result.submit);
    }
    const current = submitted ? nodeRow(store, id) : node;
    parkIfSpent(deps, current, afterCommit);
    const directive = directiveOf(store, current);
    const answered = body.results === undefined ? turn : store.turns.get(id, body.index)!;
    if (directive.action !== 'continue') return { turn: answered, directive };
    const settledAll = answered.tool_calls.every((c) => c.status !== 'pending');
    return {
      turn: answered,
      directive,
      ...(next_job !== undefined && { job: startJob(deps, id, next_job) }),
      ...(body.claim_mail === true && settledAll && { mail: claimNextMail(store, id) }),
    };
  });
}

/** Each result names a call of the turn that can run (no `error`), once. */
function checkResults(body: TurnRecordBody): void {
  const open = new Set(body.tool_calls.filter((c) => c.error === undefined).map((c) => c.id));
  for (const result of body.results ?? []) {
    if (!open.delete(result.tool_call_id)) {
      throw new ApiError(
        'invalid_request',
        `results: ${JSON.stringify(result.tool_call_id)} is no call of this turn left to settle`,
        { field: 'results', received: result.tool_call_id },
      );
    }
  }
}
