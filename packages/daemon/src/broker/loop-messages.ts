/**
 * The conversation the agent loop gives the model, rebuilt from the daemon's records: a turn's
 * input, what the model said and called, the calls' results, and the node's new mail.
 */
import type { ModelMessage } from 'ai';
import { toolResultsMessage } from '../model-access/model-turn.ts';
import type { BrokerPort, Mail, RecordedToolCall, Turn } from './port.ts';

/**
 * The node's unacknowledged mail (`claimed` with the last result, else claimed now) minus what a
 * recorded turn already holds: mail a turn recorded but never acknowledged (by a daemon that did
 * not acknowledge with the turn) is acknowledged now.
 */
export async function claimNewMail(
  port: BrokerPort,
  seen: ReadonlySet<number>,
  prefetched: Mail[] | null,
): Promise<Mail[]> {
  const claimed = prefetched ?? (await port.claimMail());
  const stale = claimed.filter((m) => seen.has(m.seq)).map((m) => m.seq);
  if (stale.length > 0) await port.ackMail(stale);
  return claimed.filter((m) => !seen.has(m.seq));
}

export function mailText(mail: Mail): string {
  const { kind, id } = mail.from;
  return kind === 'owner' ? mail.text : `Message from ${kind} ${id}:\n${mail.text}`;
}

/** Daemon notes (`system`) reach the model as user messages: providers take one system prompt. */
export function inputMessage(message: { text: string }): ModelMessage {
  return { role: 'user', content: message.text };
}

export function assistantMessage(turn: Turn): ModelMessage | null {
  const content = [
    ...(turn.text === '' ? [] : [{ type: 'text' as const, text: turn.text }]),
    ...turn.tool_calls.map((c) => ({
      type: 'tool-call' as const,
      toolCallId: c.id,
      toolName: c.name,
      input: c.input ?? {},
    })),
  ];
  return content.length === 0 ? null : { role: 'assistant', content };
}

export function resultsMessage(calls: readonly RecordedToolCall[]): ModelMessage {
  return toolResultsMessage(
    calls.map((c) => ({
      id: c.id,
      name: c.name,
      output: c.output,
      is_error: c.status === 'error',
    })),
  );
}
