import { createHash } from 'node:crypto';
import type { Directive, TurnRecordBody } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Turn } from '../nodes/store/turns.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';
import { directiveOf } from './directive.ts';
import { parkIfSpent } from './park.ts';

/**
 * `broker.turns.record`: the next turn, before its calls run. A turn's `index` must be the next
 * one; the last recorded index again with the same body (by fingerprint) answers the recorded
 * turn, anything else is 409 `conflict`, so a retried record never doubles a turn. A turn without
 * calls that reaches a budget parks the node; one with calls parks it once their results are in.
 */
export function recordTurn(
  deps: Pick<PlaneDeps, 'store' | 'events' | 'nodes'>,
  id: string,
  body: TurnRecordBody,
): { turn: Turn; directive: Directive } {
  const { store, events } = deps;
  const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  return store.db.transaction((afterCommit) => {
    const node = nodeRow(store, id);
    const recorded = store.turns.fingerprint(id, body.index);
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
    const next = store.turns.lastIndex(id) + 1;
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
    store.nodes.save(node);
    // Progress: the relaunch budget starts over.
    store.brokers.resetFaults(id);
    // Its mail is in a recorded turn now: acknowledged with it, not in a request of its own.
    const seqs = turn.input.flatMap((m) => (m.mail_seq === null ? [] : [m.mail_seq]));
    if (seqs.length > 0) store.mail.acknowledge(id, seqs, now());
    events.record('node.turn', id, { node_id: id, turn });
    parkIfSpent(deps, node, afterCommit);
    return { turn, directive: directiveOf(store, node) };
  });
}
