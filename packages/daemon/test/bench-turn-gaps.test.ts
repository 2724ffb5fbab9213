/**
 * `bench:nodes` splits its per-turn overhead by the kind of the turn before each gap: a bash
 * turn's gap (the command's records, less the command's own time) apart from a report turn's.
 */
import { describe, expect, it } from 'vitest';
import { type EventDto, turnGaps, turnOverheads } from '../bench/nodes-client.ts';

let seq = 0;
function event(kind: string, payload: Record<string, unknown>): EventDto {
  return { seq: ++seq, kind, subject_id: 'n1', payload, created_at: '' };
}
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
function turn(index: number, start: number, finish: number): EventDto {
  return event('node.turn', { turn: { index, started_at: at(start), finished_at: at(finish) } });
}
function tool(index: number, name: string, output: Record<string, unknown> = {}): EventDto {
  return event('node.tool', { turn_index: index, tool_call: { name, output } });
}

describe('turnGaps: each gap with the kind of the turn before it', () => {
  // The bench's script: a bash turn, a report turn, a submit turn.
  const events = [
    turn(0, 0, 10),
    tool(0, 'bash', { duration_ms: 30 }),
    turn(1, 50, 55),
    tool(1, 'report'),
    turn(2, 60, 62),
    tool(2, 'submit'),
    turn(3, 70, 71),
  ];

  it("tells a bash turn from a report turn, less the command's own time after bash", () => {
    expect(turnGaps(events)).toEqual([
      { after: 'bash', ms: 10 },
      { after: 'report', ms: 5 },
      { after: 'other', ms: 8 },
    ]);
  });

  it('gives the same overheads as before, in the same order', () => {
    expect(turnOverheads(events)).toEqual([10, 5, 8]);
  });
});
