/**
 * The agent loop over the real AI SDK providers, against local servers speaking the Anthropic
 * and OpenAI wire protocols: a bash call round trip, then a submitted result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/broker/agent-loop.ts';
import { createLanguageModel, type ModelConfig } from '../../src/model-access/providers/index.ts';
import { TOOLS_ALWAYS, TOOLS_OF_ACT } from '../tool-names.ts';
import { startFakeAnthropic } from './fixtures/fake-anthropic.ts';
import { startFakeOpenAI } from './fixtures/fake-openai.ts';
import type { FakeProvider } from './fixtures/fake-provider.ts';
import { MemoryDaemon } from './memory-daemon.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-providers-'));
const fakes: FakeProvider[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: wire bodies differ per provider
type Body = any;

const CASES = [
  {
    provider: 'anthropic' as const,
    start: startFakeAnthropic,
    model: 'claude-sonnet-4-5',
    toolNames: (body: Body) => body.tools.map((t: Body) => t.name),
  },
  {
    provider: 'openai' as const,
    start: startFakeOpenAI,
    model: 'gpt-4o-mini',
    toolNames: (body: Body) => body.tools.map((t: Body) => t.name),
  },
];

describe.each(CASES)('runAgentLoop over $provider', ({ provider, start, model, toolNames }) => {
  it('runs a bash call the model asked for and sends its result back', async () => {
    const fake = await start();
    fakes.push(fake);
    fake.enqueue(
      { text: 'Checking.', tool_calls: [{ name: 'bash', input: { command: 'echo from-bash' } }] },
      { tool_calls: [{ name: 'submit', input: { result: { said: 'from-bash' } } }] },
    );
    const config: ModelConfig = { provider, model, apiKey: 'test-key', baseUrl: fake.baseUrl };
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({
      task: 'Say something through bash',
      cwd: dir,
      model: { provider, model },
    });
    const exit = await runAgentLoop({
      port: daemon.connect(id).port,
      model: createLanguageModel(config),
      signal: new AbortController().signal,
    });

    expect(exit).toEqual({ kind: 'submitted', reason: 'the node submitted its result' });
    const node = daemon.get(id);
    expect(node.node.outcome?.result).toEqual({ said: 'from-bash' });
    const [t1, t2] = node.turns;
    expect(t1).toMatchObject({
      text: 'Checking.',
      model: { provider, model },
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    expect(t1!.cost_usd).toBeGreaterThan(0);
    expect(t1!.tool_calls).toMatchObject([
      {
        name: 'bash',
        input: { command: 'echo from-bash' },
        status: 'ok',
        output: { exit_code: 0, stdout: 'from-bash\n' },
      },
    ]);
    expect(t2!.tool_calls[0]!.output).toEqual({ submitted: true });

    expect(fake.requests).toHaveLength(2);
    expect(toolNames(fake.requests[0]!.body)).toEqual([...TOOLS_OF_ACT, ...TOOLS_ALWAYS]);
    // The second request carries the call and its recorded result, under the provider's id.
    const second = JSON.stringify(fake.requests[1]!.body);
    expect(second).toContain(t1!.tool_calls[0]!.id);
    expect(second).toContain('from-bash\\\\n');
  });
});
