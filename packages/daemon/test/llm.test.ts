import { Buffer } from 'node:buffer';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeAnthropic } from './broker/fixtures/fake-anthropic.ts';
import { startFakeOpenAI } from './broker/fixtures/fake-openai.ts';
import { daemonLog, envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

const ANTHROPIC_KEY = 'sk-ant-llm-test-key-0123456789';
const OPENAI_KEY = 'sk-openai-llm-test-key-0123456789';

let t: TestDaemon;
let anthropic: FakeProvider;
let openai: FakeProvider;
let local: FakeProvider;
let echo: Server;
let echoUrl: string;
let llmApp: string;

beforeAll(async () => {
  [t, anthropic, openai, local] = await Promise.all([
    startTestDaemon(),
    startFakeAnthropic({ apiKey: ANTHROPIC_KEY }),
    startFakeOpenAI({ apiKey: OPENAI_KEY }),
    startFakeOpenAI({ apiKey: null }),
  ]);
  // A provider that, like some real ones, repeats the key it refused in its error message.
  echo = createServer((req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    const key = String(req.headers.authorization).replace(/^Bearer /, '');
    res.end(
      JSON.stringify({
        error: {
          // The key as is, shortened, and encoded as gateways print it.
          message: `Incorrect API key provided: ${key} (${key.slice(0, 12)}...${key.slice(-6)}; ${Buffer.from(key).toString('base64')}; Basic ${Buffer.from(`user:${key}`).toString('base64')})`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    );
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
  llmApp = (await t.appToken(['svc:llm'])).token;
});
afterAll(async () => {
  echo.close();
  await Promise.all([t.stop(), anthropic.close(), openai.close(), local.close()]);
});

const hello = [{ role: 'user', content: 'Say hello.' }];

async function llm(body: unknown, token?: string) {
  return t.call('/v1/llm', { ...json(body), ...(token && { token }) });
}

async function install(provider: string, body: Record<string, string>) {
  const res = await t.call(`/v1/model-auth/${provider}`, json(body));
  expect(res.status).toBe(200);
}

async function readinessOf(provider: string) {
  const body = (await (await t.call('/v1/model-auth/readiness')).json()) as {
    providers: { provider: string; ready: boolean; reason?: string; checked_at: string | null }[];
  };
  return body.providers.find((p) => p.provider === provider)!;
}

describe('POST /v1/llm with scripted', () => {
  it('answers the scripted turn, offline, with its usage and no price', async () => {
    const res = await llm(
      {
        model: {
          provider: 'scripted',
          model: 'demo',
          script: [
            { text: 'Hello from the script.', usage: { input_tokens: 7, output_tokens: 4 } },
          ],
        },
        messages: hello,
      },
      llmApp,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      model: { provider: 'scripted', model: 'demo' },
      text: 'Hello from the script.',
      parsed: null,
      usage: { input_tokens: 7, output_tokens: 4 },
      cost_usd: null,
      finish_reason: 'stop',
    });
  });

  it('needs svc:llm', async () => {
    const { token } = await t.appToken([]);
    const res = await llm({ messages: hello }, token);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'scope_missing', field: 'svc:llm' });
  });

  it('without any model says where to name one', async () => {
    const res = await llm({ messages: hello }, llmApp);
    expect(await envelope(res)).toMatchObject({ code: 'invalid_request', field: 'model' });
  });

  it("uses a profile's model and system prompt; an unknown profile is 404", async () => {
    await t.call(
      '/v1/profiles/greeter',
      json(
        {
          model: {
            provider: 'scripted',
            model: 'greeter',
            script: [{ text: 'Hi, as a profile.' }],
          },
          system_prompt: 'You greet.',
        },
        'PUT',
      ),
    );
    const res = await llm({ profile: 'greeter', messages: hello }, llmApp);
    expect(await res.json()).toMatchObject({
      model: { provider: 'scripted', model: 'greeter' },
      text: 'Hi, as a profile.',
    });
    const missing = await llm({ profile: 'ghost', messages: hello }, llmApp);
    expect(await envelope(missing)).toMatchObject({ code: 'not_found', field: 'profile' });
  });

  it('a script shorter than the conversation is a 400 naming model.script', async () => {
    const res = await llm({
      model: { provider: 'scripted', model: 'short', script: [{ text: 'one' }] },
      messages: [
        ...hello,
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'again' },
      ],
    });
    expect(await envelope(res)).toMatchObject({ code: 'invalid_request', field: 'model.script' });
  });

  it('a scripted default without a script cannot run', async () => {
    await t.call(
      '/v1/model-config',
      json({ default: { provider: 'scripted', model: 'x' } }, 'PUT'),
    );
    const res = await llm({ messages: hello });
    expect(await envelope(res)).toMatchObject({ code: 'invalid_request', field: 'model.script' });
    await t.call('/v1/model-config', json({ default: null }, 'PUT'));
  });

  it('output_schema: the answer parsed, or 422 when it does not match', async () => {
    const schema = {
      type: 'object',
      properties: { answer: { type: 'integer' } },
      required: ['answer'],
    };
    const scripted = (text: string) => ({
      model: { provider: 'scripted', model: 'json', script: [{ text }] },
      messages: hello,
      output_schema: schema,
    });
    const ok = await llm(scripted('```json\n{"answer": 42}\n```'));
    expect(await ok.json()).toMatchObject({ parsed: { answer: 42 } });
    const wrong = await llm(scripted('{"answer": "many"}'));
    expect(wrong.status).toBe(422);
    expect(await envelope(wrong)).toMatchObject({
      code: 'validation_failed',
      field: 'output_schema',
      message:
        'the model\'s answer does not match output_schema at /answer: Instance type "string" is invalid. Expected "integer".',
    });
    const prose = await llm(scripted('forty-two'));
    expect((await envelope(prose)).message).toMatch(/did not answer with JSON/);
  });
});

describe('POST /v1/llm through real wire protocols', () => {
  it('anthropic: not ready without a key, then called with the stored key and base URL', async () => {
    const before = await llm({
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      messages: hello,
    });
    expect(before.status).toBe(409);
    expect(await envelope(before)).toMatchObject({
      code: 'invalid_state',
      field: 'model.provider',
    });

    await install('anthropic', { api_key: ANTHROPIC_KEY, base_url: anthropic.baseUrl });
    anthropic.enqueue({
      text: 'Hello from Anthropic.',
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
    const res = await llm(
      {
        model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        system: 'Be brief.',
        messages: hello,
        max_output_tokens: 64,
        temperature: 0.2,
      },
      llmApp,
    );
    const answer = await res.json();
    expect(res.status).toBe(200);
    expect(answer).toEqual({
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      text: 'Hello from Anthropic.',
      parsed: null,
      usage: { input_tokens: 1000, output_tokens: 100 },
      cost_usd: 0.0045,
      finish_reason: 'stop',
    });
    const sent = anthropic.requests.at(-1)!;
    expect(sent.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      temperature: 0.2,
      system: [expect.objectContaining({ text: 'Be brief.' })],
    });
    expect(await readinessOf('anthropic')).toMatchObject({
      ready: true,
      checked_at: expect.any(String),
    });
  });

  it('anthropic: a refused key is 409, makes the provider not ready, and a good call clears it', async () => {
    anthropic.failNext(1, 401);
    const res = await llm({
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      messages: hello,
    });
    expect(res.status).toBe(409);
    // The provider named, and the fix.
    expect((await envelope(res)).message).toMatch(
      /^anthropic refused the stored credentials \(.*\); install working ones with: svc models install anthropic/,
    );
    const refused = await readinessOf('anthropic');
    expect(refused.ready).toBe(false);
    expect(refused.reason).toMatch(/failed: .*install working credentials/);

    anthropic.enqueue({ text: 'ok again' });
    const ok = await llm({
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      messages: hello,
    });
    expect(ok.status).toBe(200);
    expect((await readinessOf('anthropic')).ready).toBe(true);
  });

  it('openai: the Responses API with the stored bearer key', async () => {
    await install('openai', { api_key: OPENAI_KEY, base_url: openai.baseUrl });
    openai.enqueue({ text: 'Hello from OpenAI.', usage: { input_tokens: 10, output_tokens: 5 } });
    const res = await llm(
      { model: { provider: 'openai', model: 'gpt-5-mini' }, messages: hello },
      llmApp,
    );
    expect(await res.json()).toMatchObject({
      model: { provider: 'openai', model: 'gpt-5-mini' },
      text: 'Hello from OpenAI.',
      usage: { input_tokens: 10, output_tokens: 5 },
      cost_usd: expect.any(Number),
    });
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('openai-compatible: chat completions at the base URL, no key needed, no price', async () => {
    await install('openai-compatible', { base_url: local.baseUrl });
    local.enqueue({ text: 'Hello from a local model.' });
    const res = await llm({
      model: { provider: 'openai-compatible', model: 'llama3.2' },
      messages: hello,
    });
    expect(await res.json()).toMatchObject({ text: 'Hello from a local model.', cost_usd: null });
    expect(local.requests.at(-1)!.path).toBe('/v1/chat/completions');
    expect(local.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('a provider echoing the key in its error: the key reaches no answer, readiness or log', async () => {
    const key = 'sk-echoed-secret-key-abcdefghijklmnop';
    await install('openai', { api_key: key, base_url: echoUrl });
    const res = await llm({ model: { provider: 'openai', model: 'gpt-5' }, messages: hello });
    expect(res.status).toBe(409);
    const text = await res.text();
    expect(text).toContain('[redacted]');
    const leaks = [
      key,
      key.slice(0, 12),
      Buffer.from(key).toString('base64').slice(0, 16),
      Buffer.from(`user:${key}`).toString('base64').slice(8, 24),
    ];
    for (const leak of leaks) expect(text).not.toContain(leak);
    expect(text).toContain('Incorrect API key provided'); // what it says stays
    const readiness = await (await t.call('/v1/model-auth/readiness')).text();
    expect(readiness).toContain('[redacted]');
    for (const leak of leaks) expect(readiness).not.toContain(leak);
    expect(await daemonLog(t.home)).not.toContain(key);
  });
});
