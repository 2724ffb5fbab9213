/**
 * One model turn: the conversation so far goes to the model, and what it answered comes back as
 * text, tool calls, usage and cost. Tools are declared without an implementation, so the turn
 * stops at the tool calls: the caller (the agent loop) records each call before acting on it,
 * runs it, and sends the results back in the next turn with `toolResultsMessage`.
 *
 * Provider errors are retried here and only here, by the AI SDK (`maxRetries`, exponential backoff
 * from 2 s that honours `retry-after`); what still fails is thrown as a classified `ModelError`.
 * Aborting `signal` aborts the HTTP request itself and rejects with code `aborted`.
 */
import {
  type FinishReason,
  type JSONSchema7,
  type JSONValue,
  jsonSchema,
  type ModelMessage,
  streamText,
  type Tool,
  tool,
} from 'ai';
import { ModelError, toModelError } from './model-error.ts';
import { costUsd } from './pricing.ts';
import type { LanguageModelV4 } from './providers/index.ts';

/** A tool the model may call, described by the JSON Schema of its input. */
export interface ToolSpec {
  description?: string;
  input_schema: JSONSchema7;
}

export interface ModelTurnOptions {
  model: LanguageModelV4;
  system?: string;
  messages: ModelMessage[];
  tools: Record<string, ToolSpec>;
  signal: AbortSignal;
  /** Retries after a retryable provider error (429, 5xx, network); default 2. */
  maxRetries?: number;
  /** Called with each piece of text as it streams in, in order. Must not throw. */
  onTextDelta?: (delta: string) => void;
}

export interface ModelToolCall {
  id: string;
  name: string;
  input: unknown;
  /**
   * Set when the call cannot be run at all (a tool that was not offered, input that is not JSON);
   * `response_messages` then already carries an error result for it. Input is not checked
   * against `input_schema` here: whoever runs the tool validates it.
   */
  error?: string;
}

export interface ModelTurnUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface ModelTurnResult {
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelTurnUsage;
  finish_reason: FinishReason;
  /** `null` when the model is not in the price table (./pricing.ts). */
  cost_usd: number | null;
  /** The turn as messages to append to the conversation before the next turn. */
  response_messages: ModelMessage[];
}

const DEFAULT_MAX_RETRIES = 2;

function sdkTools(tools: Record<string, ToolSpec>): Record<string, Tool> {
  return Object.fromEntries(
    Object.entries(tools).map(([name, spec]) => [
      name,
      tool({
        ...(spec.description !== undefined && { description: spec.description }),
        inputSchema: jsonSchema(spec.input_schema),
      }),
    ]),
  );
}

export async function runModelTurn(options: ModelTurnOptions): Promise<ModelTurnResult> {
  const { model, signal } = options;
  const result = streamText({
    model,
    ...(options.system !== undefined && { instructions: options.system }),
    messages: options.messages,
    tools: sdkTools(options.tools),
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    abortSignal: signal,
    // Errors come back through the stream and are thrown classified below. The SDK's default
    // handler would print them, request body (the conversation) included, to stderr.
    onError: () => {},
  });

  let text = '';
  const toolCalls: ModelToolCall[] = [];
  const usage: ModelTurnUsage = { input_tokens: 0, output_tokens: 0 };
  let finishReason: FinishReason = 'other';
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          text += part.text;
          options.onTextDelta?.(part.text);
          break;
        case 'tool-call':
          toolCalls.push({
            id: part.toolCallId,
            name: part.toolName,
            input: part.input,
            ...(part.invalid && { error: errorText(part.error) }),
          });
          break;
        case 'finish-step':
          usage.input_tokens = part.usage.inputTokens ?? 0;
          usage.output_tokens = part.usage.outputTokens ?? 0;
          finishReason = part.finishReason;
          break;
        case 'error':
          throw part.error;
        case 'abort':
          throw new ModelError('aborted', 'the model call was aborted');
      }
    }
    if (signal.aborted) throw new ModelError('aborted', 'the model call was aborted');
    return {
      text,
      toolCalls,
      usage,
      finish_reason: finishReason,
      cost_usd: costUsd(model.provider, model.modelId, usage),
      response_messages: await result.responseMessages,
    };
  } catch (error) {
    throw toModelError(error, signal);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error ?? 'invalid tool call');
}

/** The result of one tool call, as the agent loop reports it back to the model. */
export interface ToolResult {
  id: string;
  name: string;
  /** A string is sent as text; anything else as JSON. */
  output: unknown;
  is_error?: boolean;
}

/** The `tool` message that answers a turn's tool calls, in the order given. */
export function toolResultsMessage(results: ToolResult[]): ModelMessage {
  return {
    role: 'tool',
    content: results.map((r) => ({
      type: 'tool-result' as const,
      toolCallId: r.id,
      toolName: r.name,
      output:
        typeof r.output === 'string'
          ? { type: r.is_error ? ('error-text' as const) : ('text' as const), value: r.output }
          : {
              type: r.is_error ? ('error-json' as const) : ('json' as const),
              value: (r.output ?? null) as JSONValue,
            },
    })),
  };
}
