/**
 * Nodes on real brokers over the real AI SDK providers: the daemon hands the installed key and
 * base URL to the broker on stdin, and the broker streams from a local server speaking the
 * Anthropic or OpenAI wire protocol, runs the bash call the model asked for and submits.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './broker/fixtures/fake-anthropic.ts';
import { startFakeOpenAI } from './broker/fixtures/fake-openai.ts';
import type { FakeProvider } from './broker/fixtures/fake-provider.ts';
import {
  createNode,
  isFinal,
  nodeEvents,
  ok,
  toolResults,
  turnIndexes,
  waitForNode,
} from './broker-fixtures.ts';
import { daemonLog, json, startTestDaemon, type TestDaemon } from './helpers.ts';

const KEY = 'sk-test-4f1c9a7e2b6d8035';
let t: TestDaemon;
const fakes: FakeProvider[] = [];

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(async () => {
  await t?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});

const CASES = [
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: startFakeAnthropic,
    path: '/v1/messages',
  },
  { provider: 'openai', model: 'gpt-4o-mini', start: startFakeOpenAI, path: '/v1/responses' },
] as const;

describe.each(CASES)('a node over $provider', ({ provider, model, start, path }) => {
  it('streams a turn, runs its bash call and submits, with the installed key', async () => {
    const fake = await start({ apiKey: KEY });
    fakes.push(fake);
    fake.enqueue(
      { text: 'Looking.', tool_calls: [{ name: 'bash', input: { command: 'echo via-broker' } }] },
      { tool_calls: [{ name: 'submit', input: { result: { heard: 'via-broker' } } }] },
    );
    await ok(
      await t.call(`/v1/model-auth/${provider}`, json({ api_key: KEY, base_url: fake.baseUrl })),
    );

    const node = await createNode(t.call, {
      task: 'echo something',
      // An explicit list (the other supervisor tests leave it out: the owner's null).
      scopes: ['svc:llm', 'svc:act'],
      model: { provider, model },
    });
    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done.state).toBe('done');
    expect(done.outcome?.result).toEqual({ heard: 'via-broker' });
    expect(done.usage).toMatchObject({ turns: 2, input_tokens: 20, output_tokens: 10 });
    expect(done.usage.cost_usd).toBeGreaterThan(0);
    expect(await turnIndexes(t.call, node.id)).toEqual([1, 2]);
    const [bashCall] = await toolResults(t.call, node.id);
    expect(bashCall).toMatchObject({
      name: 'bash',
      status: 'ok',
      output: { stdout: 'via-broker\n' },
    });

    expect(fake.requests).toHaveLength(2);
    for (const request of fake.requests) {
      expect(request.path).toBe(path);
      expect(request.body.stream).toBe(true);
    }
    // The second request carries the recorded result back to the model.
    expect(JSON.stringify(fake.requests[1]!.body)).toContain('via-broker');

    // The key went to the provider and nowhere else.
    const events = JSON.stringify(await nodeEvents(t.call, node.id));
    expect(events).not.toContain(KEY);
    expect(await daemonLog(t.home)).not.toContain(KEY);
    expect(readFileSync(join(t.home, 'logs', 'brokers', `${node.id}.log`), 'utf8')).not.toContain(
      KEY,
    );
  });
});

describe('a provider error that quotes the key', () => {
  it('is recorded, answered and logged with the key blanked', async () => {
    const fake = await startFakeOpenAI({ apiKey: KEY });
    fakes.push(fake);
    const wrong = 'sk-wrong-9d7c5b3a1e0f2468'; // refused, and quoted back in the 401's message
    await ok(
      await t.call('/v1/model-auth/openai', json({ api_key: wrong, base_url: fake.baseUrl })),
    );
    const node = await createNode(t.call, {
      task: 'never gets a turn',
      model: { provider: 'openai', model: 'gpt-4o-mini' },
    });
    const failed = await waitForNode(t.call, node.id, isFinal);
    expect(failed.state).toBe('failed');
    expect(failed.outcome?.error?.message).toContain('[redacted]');
    // A refused key names its provider and the command that installs a working one.
    expect(failed.outcome?.error).toMatchObject({ code: 'auth_failed' });
    expect(failed.outcome?.error?.message).toMatch(
      /^openai refused the stored credentials \(.*\); install working ones with: svc models install openai/,
    );
    expect(JSON.stringify(failed)).not.toContain(wrong);
    expect(JSON.stringify(await nodeEvents(t.call, node.id))).not.toContain(wrong);
    expect(readFileSync(join(t.home, 'logs', 'brokers', `${node.id}.log`), 'utf8')).not.toContain(
      wrong,
    );
    expect(await daemonLog(t.home)).not.toContain(wrong);
  });
});
