/**
 * The real AI SDK providers against local servers that speak each provider's real wire protocol
 * (./fixtures): text, tool calls and their results, usage and cost, streaming order, retries,
 * error classes, and abort.
 */
import { generateText, type ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelError } from '../../src/model-access/model-error.ts';
import { runModelTurn, toolResultsMessage } from '../../src/model-access/model-turn.ts';
import { createLanguageModel, type ModelConfig } from '../../src/model-access/providers/index.ts';
import { startFakeAnthropic } from '../broker/fixtures/fake-anthropic.ts';
import { startFakeOpenAI } from '../broker/fixtures/fake-openai.ts';
import type { FakeProvider } from '../broker/fixtures/fake-provider.ts';

const WEATHER_TOOL = {
  get_weather: {
    description: 'Current weather for a city',
    input_schema: {
      type: 'object' as const,
      properties: { city: { type: 'string' as const }, days: { type: 'integer' as const } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

const USER: ModelMessage[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
// biome-ignore lint/suspicious/noExplicitAny: wire bodies differ per provider
type Body = any;

interface Case {
  provider: ModelConfig['provider'];
  start: () => Promise<FakeProvider>;
  model: string;
  /** Expected cost of 1000 input and 500 output tokens (null: not priced). */
  cost: number | null;
  path: string;
  /** The tools as the request declared them: [name, JSON Schema]. */
  declaredTools(body: Body): [string, unknown][];
  /** The tool call and its result as the second request sent them back. */
  sentBack(body: Body): { callId: string; name: string; input: unknown; result: string };
}

const CASES: Case[] = [
  {
    provider: 'anthropic',
    start: () => startFakeAnthropic(),
    model: 'claude-sonnet-4-5-20250929',
    cost: (1000 * 3 + 500 * 15) / 1e6,
    path: '/v1/messages',
    declaredTools: (body) => body.tools.map((t: Body) => [t.name, t.input_schema]),
    sentBack(body) {
      const use = body.messages
        .filter((m: Body) => m.role === 'assistant')
        .flatMap((m: Body) => m.content)
        .find((c: Body) => c.type === 'tool_use');
      const result = body.messages
        .filter((m: Body) => m.role === 'user' && Array.isArray(m.content))
        .flatMap((m: Body) => m.content)
        .find((c: Body) => c.type === 'tool_result');
      expect(result.tool_use_id).toBe(use.id);
      const text = typeof result.content === 'string' ? result.content : result.content[0].text;
      return { callId: use.id, name: use.name, input: use.input, result: text };
    },
  },
  {
    provider: 'openai',
    start: () => startFakeOpenAI(),
    model: 'gpt-4o-mini',
    cost: (1000 * 0.15 + 500 * 0.6) / 1e6,
    path: '/v1/responses',
    declaredTools: (body) => body.tools.map((t: Body) => [t.name, t.parameters]),
    sentBack(body) {
      const call = body.input.find((i: Body) => i.type === 'function_call');
      const output = body.input.find((i: Body) => i.type === 'function_call_output');
      expect(output.call_id).toBe(call.call_id);
      // `store: false`: the whole conversation travels, never a reference to OpenAI's copy.
      expect(body.store).toBe(false);
      expect(body.input.some((i: Body) => i.type === 'item_reference')).toBe(false);
      return {
        callId: call.call_id,
        name: call.name,
        input: JSON.parse(call.arguments),
        result: output.output,
      };
    },
  },
  {
    provider: 'openai-compatible',
    start: () => startFakeOpenAI(),
    model: 'llama3.2',
    cost: null,
    path: '/v1/chat/completions',
    declaredTools: (body) => body.tools.map((t: Body) => [t.function.name, t.function.parameters]),
    sentBack(body) {
      const call = body.messages
        .find((m: Body) => m.role === 'assistant')
        .tool_calls.find((c: Body) => c.type === 'function');
      const result = body.messages.find((m: Body) => m.role === 'tool');
      expect(result.tool_call_id).toBe(call.id);
      expect(body.stream_options).toEqual({ include_usage: true });
      return {
        callId: call.id,
        name: call.function.name,
        input: JSON.parse(call.function.arguments),
        result: result.content,
      };
    },
  },
];

describe.each(CASES)('$provider through the AI SDK', (c) => {
  let fake: FakeProvider;
  const model = (apiKey = 'test-key') =>
    createLanguageModel({ provider: c.provider, model: c.model, apiKey, baseUrl: fake.baseUrl });
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    fake = await c.start();
  });
  afterAll(() => fake.close());

  it('streams a text turn: deltas in order, usage and cost', async () => {
    fake.enqueue({
      text: 'It is sunny in Paris today.',
      usage: { input_tokens: 1000, output_tokens: 500 },
    });
    const deltas: string[] = [];
    const turn = await runModelTurn({
      model: model(),
      system: 'Be brief.',
      messages: USER,
      tools: {},
      signal: signal(),
      onTextDelta: (d) => deltas.push(d),
    });
    expect(turn.text).toBe('It is sunny in Paris today.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(turn.text);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.finish_reason).toBe('stop');
    expect(turn.usage).toEqual({ input_tokens: 1000, output_tokens: 500 });
    expect(turn.cost_usd).toBe(c.cost === null ? null : Math.round(c.cost * 1e9) / 1e9);
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe(c.path);
    expect(sent.body.stream).toBe(true);
    expect(JSON.stringify(sent.body)).toContain('Be brief.');
  });

  it('returns a tool call, then sends its result back in the wire shape', async () => {
    fake.enqueue({
      text: 'Let me check.',
      tool_calls: [{ name: 'get_weather', input: { city: 'Paris', days: 2 } }],
    });
    const first = await runModelTurn({
      model: model(),
      messages: USER,
      tools: WEATHER_TOOL,
      signal: signal(),
    });
    expect(first.finish_reason).toBe('tool-calls');
    expect(first.toolCalls).toEqual([
      { id: expect.any(String), name: 'get_weather', input: { city: 'Paris', days: 2 } },
    ]);
    expect(c.declaredTools(fake.requests.at(-1)!.body)).toEqual([
      ['get_weather', expect.objectContaining(WEATHER_TOOL.get_weather.input_schema)],
    ]);

    const call = first.toolCalls[0]!;
    fake.enqueue({ text: 'It is 21 °C.' });
    const second = await runModelTurn({
      model: model(),
      messages: [
        ...USER,
        ...first.response_messages,
        toolResultsMessage([{ id: call.id, name: call.name, output: { temp_c: 21 } }]),
      ],
      tools: WEATHER_TOOL,
      signal: signal(),
    });
    expect(second.text).toBe('It is 21 °C.');
    const back = c.sentBack(fake.requests.at(-1)!.body);
    expect(back).toEqual({
      callId: call.id,
      name: 'get_weather',
      input: { city: 'Paris', days: 2 },
      result: expect.stringContaining('"temp_c":21'),
    });
  });

  it('answers a non-streaming request from the same fake (generateText)', async () => {
    fake.enqueue({ text: 'plain JSON answer' });
    const { text } = await generateText({ model: model(), prompt: 'hi', maxRetries: 0 });
    expect(text).toBe('plain JSON answer');
    expect(fake.requests.at(-1)!.body.stream).not.toBe(true);
  });

  it('retries a 429 and then succeeds', async () => {
    const before = fake.requests.length;
    fake.failNext(1, 429);
    fake.enqueue({ text: 'after the retry' });
    const turn = await runModelTurn({
      model: model(),
      messages: USER,
      tools: {},
      signal: signal(),
    });
    expect(turn.text).toBe('after the retry');
    expect(fake.requests.length - before).toBe(2);
  });

  it('gives up on repeated 5xx after maxRetries, classified overloaded', async () => {
    const before = fake.requests.length;
    fake.failNext(2, c.provider === 'anthropic' ? 529 : 503);
    const error = await runModelTurn({
      model: model(),
      messages: USER,
      tools: {},
      signal: signal(),
      maxRetries: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'overloaded', retryable: true, attempts: 2 });
    expect(fake.requests.length - before).toBe(2);
  });

  it('does not retry a 401, classifies it auth, and prints nothing', async () => {
    const before = fake.requests.length;
    const printed = ['error', 'warn', 'log', 'info'].map((m) =>
      vi.spyOn(console, m as 'error').mockImplementation(() => {}),
    );
    const error = await runModelTurn({
      model: model('wrong-key'),
      messages: USER,
      tools: {},
      signal: signal(),
    })
      .catch((e: unknown) => e)
      .finally(() => {
        for (const spy of printed) spy.mockRestore();
      });
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'auth', retryable: false, status: 401, attempts: 1 });
    expect(fake.requests.length - before).toBe(1);
    // The SDK's default error handler would print the request, conversation included.
    for (const spy of printed) expect(spy).not.toHaveBeenCalled();
  });

  it('classifies an error event in the middle of a stream', async () => {
    // A 500 sent as an in-stream error event after some text.
    fake.enqueue({ text: 'partial, then the provider fails', fail_mid_stream: 500 });
    const deltas: string[] = [];
    const error = await runModelTurn({
      model: model(),
      messages: USER,
      tools: {},
      signal: signal(),
      onTextDelta: (d) => deltas.push(d),
    }).catch((e: unknown) => e);
    expect(deltas.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'overloaded', message: 'fake mid-stream failure' });
  });

  it('aborts mid-stream within 200 ms, and the server sees the connection close', async () => {
    fake.enqueue({ text: 'this reply never finishes', hang: true });
    const controller = new AbortController();
    let abortedAt = 0;
    const error = await runModelTurn({
      model: model(),
      messages: USER,
      tools: {},
      signal: controller.signal,
      onTextDelta: () => {
        if (abortedAt === 0) {
          abortedAt = performance.now();
          controller.abort();
        }
      },
    }).catch((e: unknown) => e);
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect(abortedAt).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'aborted' });
    await expect(fake.requests.at(-1)!.closed).resolves.toEqual({ completed: false });
  });
});

describe('openai-compatible without a key (a local server)', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: null });
  });
  afterAll(() => fake.close());

  it('sends no Authorization header and works', async () => {
    fake.enqueue({ text: 'local answer' });
    const model = createLanguageModel({
      provider: 'openai-compatible',
      model: 'qwen2.5',
      baseUrl: fake.baseUrl,
      name: 'ollama',
    });
    expect(model.provider).toBe('ollama.chat');
    const turn = await runModelTurn({
      model,
      messages: USER,
      tools: {},
      signal: new AbortController().signal,
    });
    expect(turn.text).toBe('local answer');
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
  });
});

describe('a provider that cannot be reached', () => {
  it('is classified network (and retryable)', async () => {
    const fake = await startFakeAnthropic();
    const baseUrl = fake.baseUrl;
    await fake.close();
    const model = createLanguageModel({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      apiKey: 'test-key',
      baseUrl,
    });
    const error = await runModelTurn({
      model,
      messages: USER,
      tools: {},
      signal: new AbortController().signal,
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network', retryable: true });
  });

  it('is classified network when the connection breaks mid-stream', async () => {
    const fake = await startFakeOpenAI();
    fake.enqueue({ text: 'cut off in the middle', hang: true });
    let closing: Promise<void> | undefined;
    const error = await runModelTurn({
      model: createLanguageModel({
        provider: 'openai',
        model: 'gpt-4o',
        apiKey: 'test-key',
        baseUrl: fake.baseUrl,
      }),
      messages: USER,
      tools: {},
      signal: new AbortController().signal,
      onTextDelta: () => {
        closing ??= fake.close();
      },
    }).catch((e: unknown) => e);
    await closing;
    expect(error).toMatchObject({ code: 'network', retryable: true });
  });
});
