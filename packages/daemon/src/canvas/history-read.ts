/** `canvas.history.read`: a node's recorded turns as text. */
import {
  TRANSCRIPT_ENTRY_MAX,
  type transcriptEntrySchema,
  type transcriptTurnSchema,
} from '@svc/protocol';
import type { z } from 'zod';
import type { Turn } from '../nodes/store/turns.ts';
import type { Principal } from '../ports.ts';
import { checkNode, type HistoryDeps } from './history-deps.ts';

export type TranscriptTurn = z.output<typeof transcriptTurnSchema>;
export type TranscriptEntry = z.output<typeof transcriptEntrySchema>;

/** A node's turns as text from `fromTurn` on; the cursor is the next turn's index. */
export function readHistory(
  { store, nodes }: HistoryDeps,
  principal: Principal,
  q: { nodeId: string; fromTurn: number; limit: number },
) {
  checkNode(nodes, q.nodeId, principal);
  const indexes = store.canvas.turnIndexes(q.nodeId, q.fromTurn, q.limit + 1);
  const data = indexes
    .slice(0, q.limit)
    .flatMap((index) => {
      const turn = store.turns.get(q.nodeId, index);
      return turn === undefined ? [] : [turn];
    })
    .map(toTranscriptTurn);
  const next = indexes[q.limit];
  return {
    data,
    has_more: next !== undefined,
    next_cursor: next === undefined ? null : String(next),
  };
}

function entry(role: TranscriptEntry['role'], text: string): TranscriptEntry {
  const truncated = text.length > TRANSCRIPT_ENTRY_MAX;
  return { role, text: truncated ? text.slice(0, TRANSCRIPT_ENTRY_MAX) : text, truncated };
}

/** A turn as text: what the model was given, what it answered, each tool call and its result. */
function toTranscriptTurn(turn: Turn): TranscriptTurn {
  const entries = turn.input.map((m) => entry(m.role, m.text));
  if (turn.text !== '') entries.push(entry('assistant', turn.text));
  for (const call of turn.tool_calls) {
    const result =
      call.status === 'pending' ? 'pending' : `${call.status}: ${JSON.stringify(call.output)}`;
    entries.push(entry('tool', `${call.name} ${JSON.stringify(call.input)} → ${result}`));
  }
  return {
    node_id: turn.node_id,
    index: turn.index,
    model: `${turn.model.provider}/${turn.model.model}`,
    entries,
    usage: turn.usage,
    cost_usd: turn.cost_usd,
    finish_reason: turn.finish_reason,
    started_at: turn.started_at,
    finished_at: turn.finished_at,
  };
}
