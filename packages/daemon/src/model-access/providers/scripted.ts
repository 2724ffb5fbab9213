/**
 * `scripted`: a built-in model that replays a given list of turns (text and tool calls) instead
 * of calling anyone, for offline and deterministic runs. It implements the AI SDK language-model
 * interface itself, at the specification version the installed `ai` expects, so everything above
 * it (`streamText`, the agent loop) runs exactly as it does against a real provider.
 *
 * Which turn plays is decided by the prompt, not by a counter: turn k answers a prompt that
 * already holds k assistant messages. So the same model can serve many calls, and a broker
 * relaunched from its recorded history resumes the script where it left off.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SCRIPT_MAX_DELAY_MS } from '@svc/protocol';
import type { LanguageModel } from 'ai';
import { ModelError } from '../model-error.ts';

/** The language-model interface version the installed `ai` expects. */
export type LanguageModelV4 = Extract<LanguageModel, { readonly specificationVersion: 'v4' }>;
type CallOptions = Parameters<LanguageModelV4['doStream']>[0];
type GenerateResult = Awaited<ReturnType<LanguageModelV4['doGenerate']>>;
type StreamResult = Awaited<ReturnType<LanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** One turn the scripted model plays: text, tool calls, or both. */
export interface ScriptedTurn {
  text?: string;
  tool_calls?: { name: string; input: unknown }[];
  /** Reported token usage; zero when omitted (nothing was really spent). */
  usage?: { input_tokens: number; output_tokens: number };
  /**
   * How long the turn takes before its first part (ms; 0 when omitted), as a remote model's time
   * to its first token: a scripted run then keeps the pace of one against a real provider.
   */
  delay_ms?: number;
}

/** Text streams in this many deltas (fewer when it is shorter), like a real provider's chunks. */
const TEXT_DELTAS = 3;

function checkScript(script: unknown): asserts script is ScriptedTurn[] {
  if (!Array.isArray(script)) throw new TypeError('script: expected an array of turns');
  script.forEach((turn: unknown, i) => {
    const where = `script[${i}]`;
    if (typeof turn !== 'object' || turn === null)
      throw new TypeError(`${where}: expected an object`);
    const { text, tool_calls: calls } = turn as ScriptedTurn;
    if (text !== undefined && typeof text !== 'string') {
      throw new TypeError(`${where}.text: expected a string`);
    }
    if (calls !== undefined) {
      if (!Array.isArray(calls)) throw new TypeError(`${where}.tool_calls: expected an array`);
      calls.forEach((call: unknown, j) => {
        const name = (call as { name?: unknown } | null)?.name;
        if (typeof name !== 'string' || name === '') {
          throw new TypeError(`${where}.tool_calls[${j}].name: expected a non-empty string`);
        }
      });
    }
    const delay = (turn as ScriptedTurn).delay_ms;
    if (
      delay !== undefined &&
      !(Number.isInteger(delay) && delay >= 0 && delay <= SCRIPT_MAX_DELAY_MS)
    ) {
      throw new TypeError(`${where}.delay_ms: expected an integer of 0 to ${SCRIPT_MAX_DELAY_MS}`);
    }
    if (!text && !calls?.length) {
      throw new TypeError(`${where}: a turn needs text or at least one tool call`);
    }
  });
}

function splitEvenly(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export function createScriptedModel(modelId: string, script: unknown): LanguageModelV4 {
  checkScript(script);
  const turns: readonly ScriptedTurn[] = structuredClone(script);

  /** The turn the prompt asks for, once its `delay_ms` is over. */
  async function play(options: CallOptions): Promise<{ index: number; turn: ScriptedTurn }> {
    if (options.abortSignal?.aborted) throw abortError(options.abortSignal);
    const index = options.prompt.filter((message) => message.role === 'assistant').length;
    const turn = turns[index];
    if (turn === undefined) {
      throw new ModelError(
        'script_exhausted',
        `scripted model "${modelId}" has ${turns.length} turn(s) and was asked for turn ${index + 1}`,
      );
    }
    if (turn.delay_ms) await sleep(turn.delay_ms, undefined, { signal: options.abortSignal });
    return { index, turn };
  }

  function outcome(index: number, turn: ScriptedTurn) {
    const calls = (turn.tool_calls ?? []).map((call, i) => ({
      type: 'tool-call' as const,
      toolCallId: `scripted_${index}_${i}`,
      toolName: call.name,
      input: JSON.stringify(call.input ?? {}),
    }));
    const input = turn.usage?.input_tokens ?? 0;
    const output = turn.usage?.output_tokens ?? 0;
    return {
      calls,
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: output, text: output, reasoning: 0 },
      },
      finishReason: calls.length
        ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
        : { unified: 'stop' as const, raw: 'stop' },
    };
  }

  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId,
    supportedUrls: {},

    async doGenerate(options): Promise<GenerateResult> {
      const { index, turn } = await play(options);
      const { calls, usage, finishReason } = outcome(index, turn);
      return {
        content: [...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []), ...calls],
        finishReason,
        usage,
        warnings: [],
      };
    },

    async doStream(options): Promise<StreamResult> {
      const { index, turn } = await play(options);
      const { calls, usage, finishReason } = outcome(index, turn);
      const parts: StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `scripted_${index}`, modelId },
      ];
      if (turn.text) {
        parts.push({ type: 'text-start', id: 'text' });
        for (const delta of splitEvenly(turn.text, TEXT_DELTAS)) {
          parts.push({ type: 'text-delta', id: 'text', delta });
        }
        parts.push({ type: 'text-end', id: 'text' });
      }
      for (const call of calls) {
        parts.push({ type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName });
        for (const delta of splitEvenly(call.input, 2)) {
          parts.push({ type: 'tool-input-delta', id: call.toolCallId, delta });
        }
        parts.push({ type: 'tool-input-end', id: call.toolCallId }, call);
      }
      parts.push({ type: 'finish', usage, finishReason });

      const signal = options.abortSignal;
      let next = 0;
      const stream = new ReadableStream<StreamPart>({
        start(controller) {
          signal?.addEventListener('abort', () => controller.error(abortError(signal)), {
            once: true,
          });
        },
        // One part per tick, so a consumer sees a stream (and can abort it) rather than a burst.
        async pull(controller) {
          await new Promise((resolve) => setImmediate(resolve));
          if (signal?.aborted) return;
          const part = parts[next++];
          if (part === undefined) controller.close();
          else controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
}
