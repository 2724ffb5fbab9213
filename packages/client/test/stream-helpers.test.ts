/**
 * The helpers of a node's and a run's stream (`on('text')`, `textStream`, `finalOutcome()`,
 * `finalText()`, `finalNode()`, `finalRun()`) against a real daemon whose real brokers play
 * scripted models.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClient, type NodeCreateParams, type Svc, SvcError } from '../src/node.ts';

let home: string;
let daemon: DaemonHandle;
let client: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-csh-'));
  daemon = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 2 } });
  client = createLocalClient({ home, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

/** Two turns of text, the second submitting. */
const TALKS: NodeCreateParams['model'] = {
  provider: 'scripted',
  model: 'talker',
  script: [
    { text: 'Thinking it over.', tool_calls: [{ name: 'report', input: { text: 'half way' } }] },
    { text: 'The answer is 42.', tool_calls: [{ name: 'submit', input: { result: 42 } }] },
  ],
};

describe('a node stream', () => {
  it("emits each turn's text, then the outcome; finalNode reads the node once done", async () => {
    const node = await client.nodes.create({ task: 'talk', model: TALKS });
    const texts: [string, string][] = [];
    const stream = client.nodes.stream(node.id).on('text', (text, snapshot) => {
      texts.push([text, snapshot]);
    });
    const outcome = await stream.finalOutcome();
    expect(outcome).toMatchObject({ state: 'done', result: 42 });
    expect(texts).toEqual([
      ['Thinking it over.', 'Thinking it over.'],
      ['The answer is 42.', 'Thinking it over.\n\nThe answer is 42.'],
    ]);
    await expect(stream.finalText()).resolves.toBe('Thinking it over.\n\nThe answer is 42.');
    await expect(stream.finalNode()).resolves.toMatchObject({ id: node.id, state: 'done' });
  });

  it('is read once: its loop and its helpers do not mix', async () => {
    const node = await client.nodes.create({ task: 'talk again', model: TALKS });
    const stream = client.nodes.stream(node.id);
    const kinds: string[] = [];
    for await (const event of stream) {
      kinds.push(event.kind);
      if (event.kind === 'node.outcome') break;
    }
    expect(kinds).toContain('node.turn');
    await expect(stream.finalOutcome()).rejects.toMatchObject({ code: 'stream_consumed' });
    await expect(stream.finalOutcome()).rejects.toBeInstanceOf(SvcError);
  });
});

describe('a run stream', () => {
  it("textStream yields the root's text as it is recorded; finalRun answers the run", async () => {
    const tcp = await daemon.enableTcp();
    const { token } = (await client.request('POST', '/v1/connect', {
      app_id: 'app-stream',
      scopes: ['svc:llm'],
    })) as { token: string };
    const { Svc: Remote } = await import('../src/index.ts');
    const app = new Remote({ baseUrl: tcp.base_url, token, maxRetries: 0 });
    const run = await app.runs.start({ task: 'talk', model: TALKS });
    const stream = app.runs.stream(run.id);
    const texts: string[] = [];
    for await (const text of stream.textStream) texts.push(text);
    expect(texts).toEqual(['Thinking it over.', 'The answer is 42.']);
    await expect(stream.finalOutcome()).resolves.toMatchObject({ state: 'done', result: 42 });
    await expect(stream.finalRun()).resolves.toMatchObject({ id: run.id, state: 'done' });
  });
});
