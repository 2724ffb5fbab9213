/** One model turn of the agent loop, recorded before any of its tool calls runs. */
import { runModelTurn } from '../model-access/model-turn.ts';
import { inputMessage, mailText } from './loop-messages.ts';
import type { LoopState } from './loop-state.ts';
import { inlineResults, jobOf } from './loop-tools.ts';
import type { Mail, Turn, TurnRecord } from './port.ts';

type TurnInput = TurnRecord['input'][number];

/** The turn after `last` (the first with the task when none), given the new `mail`. */
export async function takeTurn(loop: LoopState, last: Turn | undefined, mail: readonly Mail[]) {
  const { model, signal, port, maxRetries } = loop.options;
  const { node, system_prompt } = loop.session;
  const index = (last?.index ?? 0) + 1;
  const input: TurnInput[] = [
    ...(last === undefined ? [{ role: 'user' as const, text: node.task }] : []),
    ...mail.map((m) => ({ role: 'user' as const, text: mailText(m), mail_seq: m.seq })),
  ];
  const startedAt = new Date().toISOString();
  loop.emit({ type: 'turn.started', index });
  const modelTurn = runModelTurn({
    model,
    ...(system_prompt !== null && { system: system_prompt }),
    messages: [...loop.messages, ...input.map(inputMessage)],
    tools: loop.specs,
    signal,
    onTextDelta: (delta) => loop.emit({ type: 'text.delta', index, delta }),
    ...(maxRetries !== undefined && { maxRetries }),
  });
  const result = await modelTurn;
  // The turn ends with the model's answer: what the broker does next is the loop's overhead.
  const finishedAt = new Date().toISOString();
  const calls = result.toolCalls;
  // Calls that are records of the daemon's settle with the turn (one request); else the job of
  // the first call starts with it, so its command waits for no record of its own.
  const results = inlineResults(loop, calls);
  const nextJob = results === undefined ? jobOf(loop, calls[0]) : undefined;
  const answer = await port.recordTurn({
    index,
    model: node.model,
    input,
    text: result.text,
    tool_calls: calls.map((c) => ({
      id: c.id,
      name: c.name,
      input: c.input,
      ...(c.error !== undefined && { error: c.error }),
    })),
    usage: result.usage,
    cost_usd: result.cost_usd,
    finish_reason: result.finish_reason,
    started_at: startedAt,
    finished_at: finishedAt,
    ...(nextJob !== undefined && { next_job: nextJob }),
    ...(results !== undefined && { results, claim_mail: true }),
  });
  if (answer.mail !== undefined) loop.claimed = answer.mail;
  const first = calls[0];
  if (answer.job !== undefined && first !== undefined) {
    loop.started = { callId: first.id, job: answer.job };
  }
  return { ...answer, inlined: results !== undefined };
}
