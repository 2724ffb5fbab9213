/** `client.providers` against a real daemon calling a real plugin over HTTP on 127.0.0.1. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { createFetchHandler, definePlugin } from '@svc/plugin-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalClient,
  InternalServerError,
  type Svc,
  UnprocessableEntityError,
} from '../src/node.ts';

const plugin = definePlugin({
  name: 'echo',
  description: 'Echoes',
  groups: {
    words: {
      description: 'Words',
      commands: {
        say: {
          description: 'Say a word back',
          input: {
            type: 'object',
            properties: { word: { type: 'string', minLength: 1 } },
            required: ['word'],
          },
          handler: ({ word }: { word: string }) => ({ said: word }),
        },
      },
    },
  },
});
const handler = createFetchHandler(plugin, { logger: { warn() {} } });

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = Object.entries(req.headers).flatMap(([name, value]) =>
    typeof value === 'string' ? [[name, value] as [string, string]] : [],
  );
  const response = await handler(
    new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(req.method === 'POST' && { body: Buffer.concat(chunks) }),
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

let home: string;
let daemon: DaemonHandle;
let client: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cp-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  client = createLocalClient({ home });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`;
  await client.request('POST', '/v1/plugins', { endpoint, name: 'echo' });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('client.providers', () => {
  it('lists the tools and calls one', async () => {
    const { data } = await client.providers.tools({ provider: 'echo' });
    expect(data).toEqual([
      expect.objectContaining({
        provider: 'echo',
        group: 'words',
        command: 'say',
        name: 'echo_words_say',
        scope: 'echo:words',
      }),
    ]);
    await expect(
      client.providers.call({
        provider: 'echo',
        group: 'words',
        command: 'say',
        input: { word: 'hi' },
      }),
    ).resolves.toEqual({
      provider: 'echo',
      group: 'words',
      command: 'say',
      output: { said: 'hi' },
    });
  });

  it("throws a plugin's refusal with its status and code", async () => {
    const refused = client.providers.call({
      provider: 'echo',
      group: 'words',
      command: 'say',
      input: { word: '' },
    });
    await expect(refused).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(refused).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('throws a 502 provider_error when the plugin is down', async () => {
    await new Promise((resolve) => server.close(resolve));
    const down = client.providers.call({
      provider: 'echo',
      group: 'words',
      command: 'say',
      input: { word: 'x' },
    });
    await expect(down).rejects.toBeInstanceOf(InternalServerError);
    await expect(down).rejects.toMatchObject({ status: 502, code: 'provider_error' });
  });

  it('checks provider and profile names before any request', () => {
    expect(() =>
      client.providers.call({ provider: 'Not/Valid', group: 'g', command: 'c', input: {} }),
    ).toThrow(TypeError);
    expect(() =>
      client.providers.call({
        provider: 'echo',
        group: 'words',
        command: 'say',
        input: {},
        profile: 'BAD',
      }),
    ).toThrow(/params.profile must be a profile name/);
    expect(() => client.providers.tools({ provider: '' })).toThrow(
      /params.provider must be a provider name/,
    );
  });
});
