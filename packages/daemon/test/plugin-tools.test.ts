/**
 * Installed plugins as agent tools, end to end: the kit's handler on a real HTTP server on
 * 127.0.0.1, installed through `/v1/plugins`, and scripted nodes on real brokers calling its
 * commands, the shared token read from the profile's env store.
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createFetchHandler, definePlugin, PluginError } from '@svc/plugin-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bash,
  createNode,
  eventually,
  isFinal,
  nodeEvents,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { TOOLS_ALWAYS } from './tool-names.ts';

const TOKEN = 'acme-shared-token-7c1f';
const seen: { path: string; authorization: string | null; requestId: string | null }[] = [];
const tickets: { id: string; title: string }[] = [];

const acme = definePlugin({
  name: 'acme',
  description: 'Acme support tickets',
  groups: {
    tickets: {
      description: 'Support tickets',
      commands: {
        create: {
          description: 'Open a ticket',
          input: {
            type: 'object',
            properties: { title: { type: 'string', minLength: 1 } },
            required: ['title'],
            additionalProperties: false,
          },
          handler: ({ title }: { title: string }) => {
            const ticket = { id: `T-${tickets.length + 1}`, title };
            tickets.push(ticket);
            return ticket;
          },
        },
        list: {
          description: 'Stream the open tickets',
          async *handler() {
            yield* tickets;
          },
        },
        close: {
          description: 'Close a ticket',
          handler: ({ id }: { id?: string }) => {
            throw new PluginError(404, 'not_found', `no ticket ${id}`, { field: 'id' });
          },
        },
      },
    },
    admin: {
      description: 'Administration',
      commands: { purge: { description: 'Remove every ticket', handler: () => ({ ok: true }) } },
    },
  },
});

let t: TestDaemon;
let server: ReturnType<typeof serve>;
let endpoint = '';

beforeAll(async () => {
  const handler = createFetchHandler(acme, { token: TOKEN, logger: { warn() {} } });
  server = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => {
      seen.push({
        path: new URL(request.url).pathname,
        authorization: request.headers.get('authorization'),
        requestId: request.headers.get('svc-request-id'),
      });
      return handler(request);
    },
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`;
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
  const installed = await t.call(
    '/v1/plugins',
    json({ endpoint, name: 'acme', auth_env: 'ACME_TOKEN', token: TOKEN }),
  );
  expect(installed.status).toBe(200);
  const profile = await t.call('/v1/profiles/default', json({}, 'PUT'));
  expect(profile.status).toBe(200);
});

afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

describe("installed plugins' commands as tools", () => {
  it('runs a command with the token from the env store; the model reads its result', async () => {
    const env = await t.call('/v1/profiles/default/env/ACME_TOKEN', json({ value: TOKEN }, 'PUT'));
    expect(env.status).toBe(200);
    const node = await createNode(t.call, {
      task: 'open a ticket',
      model: scripted('agent', [
        toolCall('acme_tickets_create', { title: 'Printer on fire' }),
        toolCall('acme_tickets_create', { title: '' }),
        toolCall('acme_tickets_list', {}),
        toolCall('acme_tickets_close', { id: 'T-9' }),
        submit({ ok: true }),
      ]),
    });
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    const [created, refused, listed, closed] = await toolResults(t.call, node.id, 4);
    expect(created).toMatchObject({ name: 'acme_tickets_create', status: 'ok' });
    expect(created?.output).toEqual({ id: 'T-1', title: 'Printer on fire' });
    // The plugin's 422 envelope goes back to the model, naming the field.
    expect(refused).toMatchObject({ status: 'error' });
    expect(refused?.output).toMatchObject({
      status: 422,
      error: { code: 'validation_failed', field: 'title' },
    });
    // A streaming command answers its items.
    expect(listed).toMatchObject({ status: 'ok' });
    expect(listed?.output).toEqual({
      items: [{ id: 'T-1', title: 'Printer on fire' }],
      ended: true,
    });
    expect(closed?.output).toMatchObject({
      status: 404,
      error: { code: 'not_found', field: 'id' },
    });

    const calls = seen.filter((s) => s.path.startsWith('/plugins/acme/tickets/'));
    expect(calls.map((s) => s.path)).toEqual([
      '/plugins/acme/tickets/create',
      '/plugins/acme/tickets/create',
      '/plugins/acme/tickets/list',
      '/plugins/acme/tickets/close',
    ]);
    for (const s of calls) {
      expect(s.authorization).toBe(`Bearer ${TOKEN}`);
      expect(s.requestId).toMatch(new RegExp(`^${node.id}:`));
    }
    // The token is the env store's: it shows in no event of the node.
    expect(JSON.stringify(await nodeEvents(t.call, node.id))).not.toContain(TOKEN);
    const [started] = (await nodeEvents(t.call, node.id, ['node.state'])).filter(
      (e) => e.payload.action === 'start',
    );
    expect(started?.payload.tools).toEqual(expect.arrayContaining(['bash', 'acme_admin_purge']));
  });

  it("offers only the groups the node's scopes cover", async () => {
    const node = await createNode(t.call, {
      task: 'tickets only',
      scopes: ['acme:tickets'],
      model: scripted('narrow', [
        toolCall('acme_admin_purge', {}),
        toolCall('acme_tickets_create', { title: 'Allowed' }),
        submit({ ok: true }),
      ]),
    });
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    // The call of a tool never offered is refused as the model makes it, and never sent.
    const turns = (await nodeEvents(t.call, node.id, ['node.turn'])).map(
      (e) => e.payload.turn as { tool_calls: { name: string; status: string; output: unknown }[] },
    );
    expect(turns[0]?.tool_calls).toEqual([
      expect.objectContaining({ name: 'acme_admin_purge', status: 'error' }),
    ]);
    expect(seen.some((s) => s.path.endsWith('/admin/purge'))).toBe(false);
    const [create] = await toolResults(t.call, node.id, 1);
    expect(create).toMatchObject({ status: 'ok', output: { title: 'Allowed' } });
    // The start says what was offered, by the names the model calls: a watcher can tell why.
    const [started] = (await nodeEvents(t.call, node.id, ['node.state'])).filter(
      (e) => e.payload.action === 'start',
    );
    expect(started?.payload.tools).toEqual([
      ...TOOLS_ALWAYS,
      'acme_tickets_create',
      'acme_tickets_list',
      'acme_tickets_close',
    ]);
  });

  it('answers an error naming the env store when the token is not set there', async () => {
    await t.call('/v1/profiles/bare', json({}, 'PUT'));
    const node = await createNode(t.call, {
      task: 'no token',
      profile: 'bare',
      model: scripted('no-token', [toolCall('acme_tickets_create', { title: 'x' }), submit({})]),
    });
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    const [result] = await toolResults(t.call, node.id, 1);
    expect(result).toMatchObject({
      status: 'error',
      output:
        "plugin acme needs its shared token in the profile's env store: svc profile env set bare --name ACME_TOKEN",
    });
  });

  it('reaches a running node when the person sets the token in its env store, and when they remove it', async () => {
    await t.call('/v1/profiles/rotating', json({}, 'PUT'));
    const set = (value: string) =>
      t.call('/v1/profiles/rotating/env/ACME_TOKEN', json({ value }, 'PUT'));
    expect((await set('the-wrong-token-0000')).status).toBe(200);
    const gate = (name: string) =>
      bash(`touch at-${name}; for i in $(seq 1500); do [ -e ${name} ] && exit 0; sleep 0.02; done`);
    const create = toolCall('acme_tickets_create', { title: 'rotated' });
    const node = await createNode(t.call, {
      task: 'rotate',
      profile: 'rotating',
      model: scripted('rotating', [create, gate('one'), create, gate('two'), create, submit({})]),
    });
    const worktree = join(t.home, 'worktrees', node.id);
    const at = async (name: string) => {
      await eventually(() => existsSync(join(worktree, `at-${name}`)), 30_000, `gate ${name}`);
    };
    await at('one');
    expect((await set(TOKEN)).status).toBe(200);
    writeFileSync(join(worktree, 'one'), '');
    await at('two');
    const removed = await t.call('/v1/profiles/rotating/env/ACME_TOKEN', { method: 'DELETE' });
    expect(removed.status).toBe(200);
    writeFileSync(join(worktree, 'two'), '');
    expect(await waitForNode(t.call, node.id, isFinal, 60_000)).toMatchObject({ state: 'done' });
    const results = await toolResults(t.call, node.id, 5);
    expect(results.map((r) => r.status)).toEqual(['error', 'ok', 'ok', 'ok', 'error', 'ok']);
    expect(results[2]!.output).toMatchObject({ title: 'rotated' });
    expect(results[4]!.output).toContain('needs its shared token');
  }, 90_000);
});
