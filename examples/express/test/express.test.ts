import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOwnProcess, itServesAcme } from '../../test-support/acme-checks.ts';
import { readManifest } from '../../test-support/archive.ts';
import { createApp } from '../app.ts';
import { watcherCount } from '../plugin.ts';

const TOKEN = 'express-example-token';
const auth = { authorization: `Bearer ${TOKEN}` };

describe('acme plugin behind the Express adapter', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = await new Promise<Server>((listening) => {
      const started = createApp(TOKEN).listen(0, '127.0.0.1', () => listening(started));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`;
  });
  afterAll(async () => {
    const closed = new Promise((done) => server.close(done));
    // fetch may hold a spare connection open after the aborted stream; do not wait for it.
    server.closeAllConnections();
    await closed;
  });

  const post = (command: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/acme/tickets/${command}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', ...headers },
      body,
    });

  itServesAcme(() => url, TOKEN);

  it('declares watch as a streaming command', async () => {
    const manifest = await readManifest(await fetch(url, { headers: auth }));
    const watch = manifest.commands.find((command) => command.name === 'watch');
    expect(watch).toHaveProperty('streaming', true);
  });

  it('passes on the limit of the kit for an oversized streamed body (413)', async () => {
    const response = await post('create', JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }));
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('payload_too_large');
  });

  it('answers 405 with Allow for another method on a command path', async () => {
    const response = await fetch(`${url}/acme/tickets/create`, { method: 'PUT', headers: auth });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/POST/);
  });

  it('streams Server-Sent Events as they happen and stops the handler when the client leaves', async () => {
    const client = new AbortController();
    const response = await fetch(`${url}/acme/tickets/watch`, {
      method: 'POST',
      headers: auth,
      signal: client.signal,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const next = async () => {
      let text = '';
      for (let chunks = 0; chunks < 100 && !text.endsWith('\n\n'); chunks++) {
        const { value, done } = await events.read();
        if (done) break;
        text += value;
      }
      return text;
    };
    expect(await next()).toBe('data: {"watching":true}\n\n');

    await (await post('create', JSON.stringify({ title: 'Seen live' }))).json();
    expect(await next()).toMatch(/^data: \{.*"title":"Seen live"\}\n\n$/);

    client.abort();
    for (let i = 0; i < 100 && watcherCount() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(watcherCount()).toBe(0);
  });
});

describeOwnProcess(`${import.meta.dirname}/..`, 'app.ts', TOKEN);
