/**
 * The `scripted` provider: replays its turns through the same `runModelTurn` the real providers
 * use, deterministically, offline, and says so wherever it shows.
 */
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/model-access/model-error.ts';
import { runModelTurn, toolResultsMessage } from '../../src/model-access/model-turn.ts';
import {
  createLanguageModel,
  PROVIDERS,
  type ScriptedTurn,
} from '../../src/model-access/providers/index.ts';

const SCRIPT: ScriptedTurn[] = [
  {
    text: 'Looking it up.',
    tool_calls: [{ name: 'lookup', input: { q: 'svc' } }],
    usage: { input_tokens: 12, output_tokens: 3 },
  },
  { text: 'svc is a local control plane for agents.' },
];

const TOOLS = {
  lookup: {
    description: 'Look something up',
    input_schema: {
      type: 'object' as const,
      properties: { q: { type: 'string' as const } },
      required: ['q'],
    },
  },
};

const USER: ModelMessage[] = [{ role: 'user', content: 'What is svc?' }];
const scripted = (script: unknown = SCRIPT) =>
  createLanguageModel({ provider: 'scripted', model: 'demo', script: script as ScriptedTurn[] });
const turn = (messages: ModelMessage[], extra: { onTextDelta?: (d: string) => void } = {}) =>
  runModelTurn({
    model: scripted(),
    messages,
    tools: TOOLS,
    signal: new AbortController().signal,
    ...extra,
  });

describe('scripted provider', () => {
  it('plays a tool-call turn, streaming its text in a few deltas', async () => {
    const deltas: string[] = [];
    const first = await turn(USER, { onTextDelta: (d) => deltas.push(d) });
    expect(first.text).toBe('Looking it up.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Looking it up.');
    expect(first.toolCalls).toEqual([{ id: 'scripted_0_0', name: 'lookup', input: { q: 'svc' } }]);
    expect(first.finish_reason).toBe('tool-calls');
    expect(first.usage).toEqual({ input_tokens: 12, output_tokens: 3 });
    expect(first.cost_usd).toBeNull();
  });

  it('plays the next turn once the conversation holds the previous one', async () => {
    const first = await turn(USER);
    const second = await turn([
      ...USER,
      ...first.response_messages,
      toolResultsMessage([{ id: 'scripted_0_0', name: 'lookup', output: 'found it' }]),
    ]);
    expect(second.text).toBe('svc is a local control plane for agents.');
    expect(second.toolCalls).toEqual([]);
    expect(second.finish_reason).toBe('stop');
    expect(second.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it('is deterministic: the same conversation gets the same turn', async () => {
    const a = await turn(USER);
    const b = await turn(USER);
    expect(b).toEqual(a);
  });

  it('errors clearly when the script runs out', async () => {
    const first = await turn(USER);
    const history: ModelMessage[] = [
      ...USER,
      ...first.response_messages,
      toolResultsMessage([{ id: 'scripted_0_0', name: 'lookup', output: 'found it' }]),
    ];
    const second = await turn(history);
    const error = await turn([
      ...history,
      ...second.response_messages,
      { role: 'user', content: 'more?' },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'script_exhausted', retryable: false });
    expect((error as Error).message).toBe(
      'scripted model "demo" has 2 turn(s) and was asked for turn 3',
    );
  });

  it('honours the abort signal mid-stream', async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const error = await runModelTurn({
      model: scripted([{ text: 'a fairly long scripted answer that streams' }]),
      messages: USER,
      tools: {},
      signal: controller.signal,
      onTextDelta: () => {
        abortedAt ||= performance.now();
        controller.abort();
      },
    }).catch((e: unknown) => e);
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect(error).toMatchObject({ code: 'aborted' });
  });

  it('refuses an already aborted signal without playing', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await runModelTurn({
      model: scripted(),
      messages: USER,
      tools: TOOLS,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'aborted' });
  });

  it('reports a call to a tool that was not offered as an invalid call', async () => {
    const result = await runModelTurn({
      model: scripted([{ tool_calls: [{ name: 'rm_rf', input: {} }] }]),
      messages: USER,
      tools: TOOLS,
      signal: new AbortController().signal,
    });
    expect(result.toolCalls).toEqual([
      { id: 'scripted_0_0', name: 'rm_rf', input: {}, error: expect.stringContaining('rm_rf') },
    ]);
  });

  it("takes a turn's delay_ms before its first part, as a remote model takes time", async () => {
    const deltas: number[] = [];
    const started = performance.now();
    const result = await runModelTurn({
      model: scripted([{ text: 'late', delay_ms: 80 }]),
      messages: USER,
      tools: {},
      signal: new AbortController().signal,
      onTextDelta: () => deltas.push(performance.now() - started),
    });
    expect(result.text).toBe('late');
    // At least the delay (a loaded machine only adds to it); a timer may round 1 ms down.
    expect(deltas[0]).toBeGreaterThanOrEqual(79);
  });

  it('ends a turn waiting out its delay as soon as it is aborted', async () => {
    // The provider itself, not `runModelTurn`: the SDK ends an aborted turn whatever its
    // provider does, so only the provider's own promise shows a delay that would not stop.
    const model = scripted([{ text: 'never', delay_ms: 1_000 }]);
    const controller = new AbortController();
    const options = { prompt: [], abortSignal: controller.signal } as unknown as Parameters<
      typeof model.doStream
    >[0];
    const playing = Promise.resolve(model.doStream(options)).catch((e: unknown) => e);
    controller.abort();
    expect(await playing).toMatchObject({ name: 'AbortError' });
  });

  it('rejects a delay_ms that is not a whole number of ms up to a second', () => {
    for (const delay_ms of [-1, 1.5, 1_001, '10']) {
      expect(() => scripted([{ text: 'ok', delay_ms }])).toThrow(
        new TypeError('script[0].delay_ms: expected an integer of 0 to 1000'),
      );
    }
    expect(() => scripted([{ text: 'ok', delay_ms: 0 }])).not.toThrow();
  });

  it('rejects a malformed script with a TypeError naming the place', () => {
    expect(() => scripted('nope')).toThrow(new TypeError('script: expected an array of turns'));
    expect(() => scripted([{}])).toThrow(
      new TypeError('script[0]: a turn needs text or at least one tool call'),
    );
    expect(() => scripted([{ text: 'ok' }, { tool_calls: [{ input: {} }] }])).toThrow(
      new TypeError('script[1].tool_calls[0].name: expected a non-empty string'),
    );
  });

  it('is labelled as scripted, offline and deterministic', () => {
    const info = PROVIDERS.find((p) => p.id === 'scripted');
    expect(info).toEqual({
      id: 'scripted',
      label: expect.stringMatching(/scripted.*offline.*deterministic.*not a real model/i),
      needsKey: false,
      offline: true,
    });
    expect(scripted().provider).toBe('scripted');
  });
});

describe('createLanguageModel', () => {
  it('names the bad or missing option', () => {
    expect(() => createLanguageModel({ provider: 'gemini' as never, model: 'x' })).toThrow(
      /unknown `provider` gemini/,
    );
    expect(() => createLanguageModel({ provider: 'openai', model: '' })).toThrow(/`model`/);
    expect(() => createLanguageModel({ provider: 'anthropic', model: 'claude-haiku-4-5' })).toThrow(
      new TypeError('createLanguageModel: `apiKey` is required for provider anthropic'),
    );
    expect(() => createLanguageModel({ provider: 'openai-compatible', model: 'llama3' })).toThrow(
      new TypeError('createLanguageModel: `baseUrl` is required for provider openai-compatible'),
    );
    expect(() => createLanguageModel({ provider: 'scripted', model: 'demo' })).toThrow(
      new TypeError('createLanguageModel: `script` is required for provider scripted'),
    );
  });

  it('lists every provider it builds', () => {
    expect(PROVIDERS.map((p) => p.id)).toEqual([
      'anthropic',
      'openai',
      'openai-compatible',
      'scripted',
    ]);
    expect(PROVIDERS.filter((p) => p.needsKey).map((p) => p.id)).toEqual(['anthropic', 'openai']);
  });
});
