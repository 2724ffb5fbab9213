/** One model turn of the agent loop, recorded before any of its tool calls runs. */
import { runModelTurn } from '../model-access/model-turn.ts';
import { inputMessage, mailText } from './loop-messages.ts';
import type { LoopState } from './loop-state.ts';
import type { Mail, Turn, TurnRecord } from './port.ts';
import { warmSandbox } from './tools/bash.ts';

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
  if (loop.warm !== undefined) {
    warmSandbox(loop.warm);
    loop.warm = undefined;
  }
  const result = await modelTurn;
  return port.recordTurn({
    index,
    model: node.model,
    input,
    text: result.text,
    tool_calls: result.toolCalls.map((c) => ({
      id: c.id,
      name: c.name,
      input: c.input,
      ...(c.error !== undefined && { error: c.error }),
    })),
    usage: result.usage,
    cost_usd: result.cost_usd,
    finish_reason: result.finish_reason,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
  });
}
