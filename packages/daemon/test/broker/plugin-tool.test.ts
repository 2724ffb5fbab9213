/**
 * A plugin command as a broker tool, against real HTTP servers on 127.0.0.1: the names a model
 * provider accepts, and the answers that are not a command's result (no server, a redirect, a
 * body past the cap, a stream that does not end).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BrokerPlugin, pluginToolName } from '@svc/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/broker/tools/index.ts';
import { pluginTools } from '../../src/broker/tools/plugin.ts';
import { offeredPlugins } from '../../src/plugins/offered.ts';
import type { PluginRow } from '../../src/plugins/store.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const command = (name: string, streaming = false) => ({
  group: 'tickets',
  name,
  description: `the ${name} command`,
  scope: 'acme:tickets',
  streaming,
  method: 'POST' as const,
  path: `/plugins/acme/tickets/${name}`,
  input: { type: 'object' },
});

function plugin(origin: string, extra: Partial<BrokerPlugin> = {}): BrokerPlugin {
  return {
    name: 'acme',
    origin,
    auth: 'none',
    auth_env: null,
    commands: [command('create'), command('watch', true)],
    ...extra,
  };
}

const ctx = (signal = new AbortController().signal) =>
  ({
    node: { id: 'nd_1', profile: 'default' },
    signal,
    idempotencyKey: 'nd_1:1:call 1',
  }) as unknown as ToolContext;

describe('plugin commands as tools', () => {
  it('names each command as providers allow ([a-zA-Z0-9_-], at most 64), leaving out one too long', () => {
    expect(pluginToolName({ scope: 'acme:tickets', name: 'create' })).toBe('acme_tickets_create');
    const long = { ...command('x'.repeat(60)) };
    const tools = pluginTools(
      [plugin('http://127.0.0.1:1', { commands: [command('create'), long] })],
      {},
    );
    expect([...tools.keys()]).toEqual(['acme_tickets_create']);
    for (const name of tools.keys()) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools.get('acme_tickets_create')?.spec.input_schema).toEqual({ type: 'object' });
  });

  it('sends the input as JSON with a visible-ASCII Svc-Request-Id, and answers the result', async () => {
    let got: { body: string; id: string | undefined } | undefined;
    const origin = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        got = { body, id: req.headers['svc-request-id'] as string | undefined };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id":"T-1"}');
      });
    });
    const tool = pluginTools([plugin(origin)], {}).get('acme_tickets_create')!;
    expect(await tool.run({ title: 'x' }, ctx())).toEqual({ output: { id: 'T-1' } });
    expect(got).toEqual({ body: '{"title":"x"}', id: 'nd_1:1:call_1' });
    expect(await tool.run(['not', 'an', 'object'], ctx())).toEqual({
      output: 'the input must be a JSON object',
      is_error: true,
    });
  });

  it('answers an error result, not a throw, when the plugin cannot be reached', async () => {
    const origin = await serve(() => {});
    servers[0]!.close();
    await new Promise((r) => setTimeout(r, 50));
    const tool = pluginTools([plugin(origin)], {}).get('acme_tickets_create')!;
    const outcome = await tool.run({}, ctx());
    expect(outcome).toMatchObject({ is_error: true });
    expect(String((outcome as { output: unknown }).output)).toMatch(
      /could not be called: .*ECONNREFUSED/,
    );
  });

  it('never follows a redirect, which would carry the token to another origin', async () => {
    let elsewhere = 0;
    const other = await serve((_req, res) => {
      elsewhere++;
      res.end('{}');
    });
    const origin = await serve((_req, res) => {
      res.writeHead(307, { location: `${other}/steal` });
      res.end();
    });
    const tool = pluginTools([plugin(origin, { auth: 'token', auth_env: 'T' })], {
      T: 'secret',
    }).get('acme_tickets_create')!;
    const outcome = await tool.run({}, ctx());
    expect(outcome).toMatchObject({ is_error: true });
    expect(elsewhere).toBe(0);
    expect(JSON.stringify(outcome)).not.toContain('secret');
  });

  it('answers an error result, not a throw, when the plugin breaks off its answer', async () => {
    for (const status of [200, 500]) {
      const origin = await serve((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":');
        setTimeout(() => res.destroy(), 20);
      });
      const tool = pluginTools([plugin(origin)], {}).get('acme_tickets_create')!;
      const outcome = await tool.run({}, ctx());
      expect(outcome).toMatchObject({ is_error: true });
      expect(String((outcome as { output: unknown }).output)).toMatch(
        /^plugin acme broke off its answer: /,
      );
    }
  });

  it('says a slow answer timed out, not that it was cut', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":'); // and never more
    });
    const tool = pluginTools([plugin(origin)], {}, { timeoutMs: 200 }).get('acme_tickets_create')!;
    expect(await tool.run({}, ctx())).toEqual({
      output: 'plugin acme broke off its answer: no complete answer in 0.2 s',
      is_error: true,
    });
  });

  it('never sends, nor shows, an env value that is not a bearer token', async () => {
    let calls = 0;
    const origin = await serve((_req, res) => {
      calls++;
      res.end('{}');
    });
    const guarded = plugin(origin, { auth: 'token', auth_env: 'ACME_TOKEN' });
    for (const value of ['sec\r\nret-1', 'sec ret-2', 'séc-3']) {
      const tool = pluginTools([guarded], { ACME_TOKEN: value }).get('acme_tickets_create')!;
      const outcome = await tool.run({}, ctx());
      expect(outcome).toEqual({
        output:
          "the value of ACME_TOKEN in profile default's env store is not a bearer token (visible ASCII, no white space): set it again",
        is_error: true,
      });
    }
    expect(calls).toBe(0);
  });

  it('cuts an answer past 1 MiB, and says so', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`"${'x'.repeat(2 * 1024 * 1024)}"`);
    });
    const tool = pluginTools([plugin(origin)], {}).get('acme_tickets_create')!;
    const outcome = (await tool.run({}, ctx())) as { output: { truncated: boolean; text: string } };
    expect(outcome.output.truncated).toBe(true);
    expect(outcome.output.text.length).toBe(1024 * 1024);
  });

  it("answers a stream's items so far when the node is stopped, and an error event's envelope", async () => {
    const origin = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url?.endsWith('/create')) {
        res.end('data: {"n":1}\n\nevent: error\ndata: {"error":{"code":"internal_error"}}\n\n');
        return;
      }
      res.write('data: {"n":1}\n\n'); // and never ends
    });
    const tools = pluginTools([plugin(origin)], {});
    expect(await tools.get('acme_tickets_create')!.run({}, ctx())).toEqual({
      output: { items: [{ n: 1 }], error: { code: 'internal_error' } },
      is_error: true,
    });
    const stop = new AbortController();
    setTimeout(() => stop.abort('the node was stopped'), 200);
    const outcome = await tools.get('acme_tickets_watch')!.run({}, ctx(stop.signal));
    expect(outcome).toMatchObject({ output: { items: [{ n: 1 }], ended: false } });
  });

  it('reads at most 1 MiB of a stream, even one endless event, and lets go of the connection after done', async () => {
    let closed = false;
    const origin = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url?.endsWith('/create')) {
        res.write('data: "');
        const chunk = 'x'.repeat(64 * 1024);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
        return;
      }
      res.write('data: {"n":1}\n\nevent: done\ndata: {}\n\n'); // and keeps the connection
      res.on('close', () => {
        closed = true;
      });
    });
    const tools = pluginTools([plugin(origin)], {});
    expect(await tools.get('acme_tickets_create')!.run({}, ctx())).toEqual({
      output: { items: [], ended: false, truncated: true },
    });
    expect(await tools.get('acme_tickets_watch')!.run({}, ctx())).toEqual({
      output: { items: [{ n: 1 }], ended: true },
    });
    for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(true);
  });

  it('offers plugins of every auth mode, only the groups kept', () => {
    const row = (name: string, auth: PluginRow['auth']): PluginRow => ({
      name,
      description: '',
      endpoint: 'http://127.0.0.1/p',
      origin: 'http://127.0.0.1',
      major: null,
      supported: null,
      auth,
      auth_env: null,
      groups: [],
      commands: [{ ...command('create'), scope: `${name}:tickets` }],
      etag: null,
      installed_at: '',
      updated_at: '',
    });
    const offered = offeredPlugins([row('open', 'none'), row('dir', 'directory')]);
    expect(offered.groups).toEqual(['open:tickets', 'dir:tickets']);
    expect(offered.keep(['open:tickets', 'dir:tickets']).map((p) => p.name)).toEqual([
      'open',
      'dir',
    ]);
    expect(offered.keep(['dir:tickets']).map((p) => p.auth)).toEqual(['directory']);
    expect(offered.keep([])).toEqual([]);
  });
});
