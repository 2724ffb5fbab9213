/**
 * `providers` end to end: plugins built with the kit on real HTTP servers on 127.0.0.1, installed
 * through `/v1/plugins`, listed and called by the owner and by app tokens through
 * `/v1/providers/tools` and `POST /v1/provider/call`, authenticated as nodes' calls are: the shared
 * token from a profile's env store, or a token the daemon's directory signs.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createFetchHandler, definePlugin, PluginError } from '@svc/plugin-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { openStore } from '../src/store/index.ts';
import { tokenService } from '../src/tokens/service.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { ONE_IDLE_SLOT, SCRIPTED } from './nodes-fixture.ts';

const TOKEN = 'acme-shared-token-91ab';
const seen: { path: string; authorization: string | null; requestId: string | null }[] = [];

/** How many times `crash` ran: a plugin that failed may have acted first. */
let crashes = 0;

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
          handler: ({ title }: { title: string }) => ({ id: 'T-1', title }),
        },
        list: {
          description: 'Stream the open tickets',
          async *handler() {
            yield { id: 'T-1' };
            yield { id: 'T-2' };
          },
        },
        close: {
          description: 'Close a ticket',
          handler: ({ id }: { id?: string }) => {
            throw new PluginError(404, 'not_found', `no ticket ${id}`, { field: 'id' });
          },
        },
        crash: {
          description: 'Fail unexpectedly',
          handler: () => {
            crashes += 1;
            throw new Error('boom');
          },
        },
        // A debug page quoting the request: what a plugin echoes must not hand the token on.
        echo: {
          description: 'Refuse, quoting the Authorization header',
          handler: (_input, ctx) => {
            const sent = ctx.request.headers.get('authorization');
            throw new PluginError(422, 'validation_failed', `sent ${sent}`, { received: sent });
          },
        },
        // Answered through `escaping`: a serializer that writes the header's characters as
        // `\u` escapes, which only parsing turns back into the token.
        escaped: {
          description: 'Answer the Authorization header, escaped',
          handler: (_input, ctx) => ({ sent: ctx.request.headers.get('authorization') }),
        },
        echoes: {
          description: 'Stream the Authorization header',
          async *handler(_input, ctx) {
            yield { sent: ctx.request.headers.get('authorization') };
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

const audit = definePlugin({
  name: 'audit',
  description: 'Who called',
  groups: {
    log: {
      description: 'The audit log',
      commands: {
        whoami: {
          description: 'The caller, as verified',
          handler: (_input, ctx) => ({ ...ctx.caller }),
        },
      },
    },
  },
});

const gone = definePlugin({
  name: 'gone',
  description: 'Served once, then down',
  groups: {
    misc: { description: 'Misc', commands: { ping: { description: 'Ping', handler: () => ({}) } } },
  },
});

let t: TestDaemon;
const servers: ReturnType<typeof serve>[] = [];
let appTickets = '';
let appAudit = '';

/** The kit's handler on 127.0.0.1; answers its endpoint (mount `/plugins`). */
async function served(
  handler: () => (request: Request) => Promise<Response>,
): Promise<{ endpoint: string; server: ReturnType<typeof serve> }> {
  const server = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => {
      seen.push({
        path: new URL(request.url).pathname,
        authorization: request.headers.get('authorization'),
        requestId: request.headers.get('svc-request-id'),
      });
      return handler()(request);
    },
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  servers.push(server);
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`, server };
}

/** `handler`, with the token in its `escaped` command's answer spelled in JSON `\u` escapes. */
function escaping(handler: (request: Request) => Promise<Response>) {
  const spelled = [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return async (request: Request): Promise<Response> => {
    const answer = await handler(request);
    if (!new URL(request.url).pathname.endsWith('/escaped')) return answer;
    const text = (await answer.text()).replace(TOKEN, spelled.join(''));
    return new Response(text, { status: answer.status, headers: answer.headers });
  };
}

const close = (server: ReturnType<typeof serve>) => new Promise((resolve) => server.close(resolve));

beforeAll(async () => {
  // Nodes made here stay queued (an idle broker holds the one slot): their tokens act.
  t = await startTestDaemon({ tcp: { host: '127.0.0.1', port: 0 }, brokers: ONE_IDLE_SLOT });
  const acmeHandler = createFetchHandler(acme, { token: TOKEN, logger: { warn() {} } });
  const acmeAt = await served(() => escaping(acmeHandler));
  let auditHandler: ((request: Request) => Promise<Response>) | undefined;
  const auditAt = await served(() => auditHandler!);
  auditHandler = createFetchHandler(audit, {
    auth: { issuer: t.daemon.tcp!.base_url, audience: auditAt.endpoint },
  });
  const goneHandler = createFetchHandler(gone, { logger: { warn() {} } });
  const goneAt = await served(() => goneHandler);
  for (const body of [
    { endpoint: acmeAt.endpoint, name: 'acme', auth_env: 'ACME_TOKEN', token: TOKEN },
    { endpoint: auditAt.endpoint, name: 'audit' },
    { endpoint: goneAt.endpoint, name: 'gone' },
  ]) {
    const installed = await t.call('/v1/plugins', json(body));
    expect(installed.status, await installed.clone().text()).toBe(200);
  }
  await close(goneAt.server);
  expect((await t.call('/v1/profiles/default', json({}, 'PUT'))).status).toBe(200);
  expect((await t.call('/v1/profiles/bare', json({}, 'PUT'))).status).toBe(200);
  const env = await t.call('/v1/profiles/default/env/ACME_TOKEN', json({ value: TOKEN }, 'PUT'));
  expect(env.status).toBe(200);
  appTickets = (await t.appToken(['acme:tickets'])).token;
  appAudit = (await t.appToken(['audit:log'], { app_id: 'audit-app' })).token;
});

afterAll(async () => {
  await t?.stop();
  await Promise.all(servers.map(close));
});

/** `POST /v1/provider/call` with `token` (the owner's when omitted). */
const call = (body: Record<string, unknown>, token?: string) =>
  t.call('/v1/provider/call', { ...json(body), ...(token !== undefined && { token }) });

describe('GET /v1/providers/tools', () => {
  it('lists every command to the owner, with the tool name nodes see', async () => {
    const res = await t.call('/v1/providers/tools');
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown>[] };
    expect(data.map((d) => `${d.provider}:${d.group}.${d.command}`)).toEqual([
      'acme:tickets.create',
      'acme:tickets.list',
      'acme:tickets.close',
      'acme:tickets.crash',
      'acme:tickets.echo',
      'acme:tickets.escaped',
      'acme:tickets.echoes',
      'acme:admin.purge',
      'audit:log.whoami',
      'gone:misc.ping',
    ]);
    expect(data[0]).toEqual({
      provider: 'acme',
      group: 'tickets',
      command: 'create',
      name: 'acme_tickets_create',
      description: 'Open a ticket',
      input_schema: expect.objectContaining({ required: ['title'] }),
      streaming: false,
      scope: 'acme:tickets',
    });
    expect(data[1]).toMatchObject({ name: 'acme_tickets_list', streaming: true });
  });

  it('lists to an app only the groups its scopes cover; ?provider= narrows', async () => {
    const res = await t.call('/v1/providers/tools', { token: appTickets });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { scope: string; command: string }[] };
    expect(data.map((d) => d.command)).toEqual([
      'create',
      'list',
      'close',
      'crash',
      'echo',
      'escaped',
      'echoes',
    ]);
    expect(new Set(data.map((d) => d.scope))).toEqual(new Set(['acme:tickets']));
    const other = await t.call('/v1/providers/tools?provider=audit', { token: appTickets });
    expect(await other.json()).toEqual({ data: [] });
    const narrowed = await t.call('/v1/providers/tools?provider=audit');
    expect(
      ((await narrowed.json()) as { data: { provider: string }[] }).data.map((d) => d.provider),
    ).toEqual(['audit']);
    const none = await t.call('/v1/providers/tools?provider=nope');
    expect(await none.json()).toEqual({ data: [] });
  });
});

describe('POST /v1/provider/call', () => {
  it("calls a shared-token plugin with the profile env store's token and this request's id", async () => {
    const res = await call(
      { provider: 'acme', group: 'tickets', command: 'create', input: { title: 'Printer' } },
      appTickets,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      provider: 'acme',
      group: 'tickets',
      command: 'create',
      output: { id: 'T-1', title: 'Printer' },
    });
    const sent = seen.filter((s) => s.path === '/plugins/acme/tickets/create').at(-1);
    expect(sent?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent?.requestId).toBe(res.headers.get('svc-request-id'));
  });

  it('answers 409 naming the fix when the profile env store lacks the token', async () => {
    const res = await call(
      {
        provider: 'acme',
        group: 'tickets',
        command: 'create',
        input: { title: 'x' },
        profile: 'bare',
      },
      appTickets,
    );
    expect(res.status).toBe(409);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const error = await envelope(res);
    expect(error).toMatchObject({ code: 'invalid_state', field: 'profile' });
    expect(error.message).toContain('svc profile env set bare --name ACME_TOKEN');
  });

  it("lets an app use only a profile it may use: another app's answers 404", async () => {
    const other = (await t.appToken(['svc:llm'], { app_id: 'other-app' })).token;
    const made = await t.call('/v1/profiles/theirs', { ...json({}, 'PUT'), token: other });
    expect(made.status).toBe(200);
    const res = await call(
      {
        provider: 'acme',
        group: 'tickets',
        command: 'create',
        input: { title: 'x' },
        profile: 'theirs',
      },
      appTickets,
    );
    expect(res.status).toBe(404);
    expect(await envelope(res)).toMatchObject({ code: 'not_found', field: 'profile' });
  });

  it("signs a directory plugin's token for the app: grantee, client and actor, no run", async () => {
    const res = await call(
      { provider: 'audit', group: 'log', command: 'whoami', input: {} },
      appAudit,
    );
    expect(res.status).toBe(200);
    const { output } = (await res.json()) as { output: Record<string, unknown> };
    expect(output).toMatchObject({
      grantee: 'audit-app',
      clientId: 'audit-app',
      initiatingApp: 'audit-app',
      scope: ['audit:log'],
      // The kit requires `act`; with no node between, the app is the actor.
      act: { sub: 'audit-app' },
      requestId: res.headers.get('svc-request-id'),
    });
    expect(output.sub).toEqual(expect.any(String));
    expect(output.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(output).not.toHaveProperty('runId');
    // The owner is `svc`, as its nodes' grantee is.
    const owner = await call({ provider: 'audit', group: 'log', command: 'whoami', input: {} });
    expect(await owner.json()).toMatchObject({
      output: { grantee: 'svc', clientId: 'svc', act: { sub: 'svc' } },
    });
  });

  it('answers 403 scope_missing naming the scope when the token does not cover the group', async () => {
    for (const [token, provider, group] of [
      [appTickets, 'acme', 'admin'],
      [appTickets, 'audit', 'log'],
      // Whether it is installed is not told to a caller without the scope.
      [appTickets, 'nope', 'tickets'],
    ] as const) {
      const res = await call({ provider, group, command: 'purge', input: {} }, token);
      expect(res.status).toBe(403);
      expect(await envelope(res)).toMatchObject({
        code: 'scope_missing',
        field: `${provider}:${group}`,
        received: ['acme:tickets'],
      });
    }
  });

  it('answers 404 for an unknown provider, group or command', async () => {
    for (const [provider, group, command, field] of [
      ['nope', 'tickets', 'create', 'provider'],
      ['acme', 'nope', 'create', 'group'],
      ['acme', 'tickets', 'nope', 'command'],
    ] as const) {
      const res = await call({ provider, group, command, input: {} });
      expect(res.status).toBe(404);
      expect(await envelope(res)).toMatchObject({ code: 'not_found', field });
    }
  });

  it("passes a plugin's 4xx envelope through with its status and this request's id", async () => {
    const refused = await call(
      { provider: 'acme', group: 'tickets', command: 'create', input: { title: '' } },
      appTickets,
    );
    expect(refused.status).toBe(422);
    const error = await envelope(refused);
    expect(error).toMatchObject({ code: 'validation_failed', field: 'title' });
    expect(error.request_id).toBe(refused.headers.get('svc-request-id'));
    const missing = await call(
      { provider: 'acme', group: 'tickets', command: 'close', input: { id: 'T-9' } },
      appTickets,
    );
    expect(missing.status).toBe(404);
    expect(await envelope(missing)).toMatchObject({
      code: 'not_found',
      message: 'no ticket T-9',
      field: 'id',
    });
  });

  it('answers 502 provider_error, not retried, for a plugin 5xx, a refused credential, or a plugin down', async () => {
    const crashed = await call({
      provider: 'acme',
      group: 'tickets',
      command: 'crash',
      input: {},
    });
    expect(crashed.status).toBe(502);
    expect(crashed.headers.get('x-should-retry')).toBe('false');
    expect(await envelope(crashed)).toMatchObject({
      code: 'provider_error',
      received: { status: 500, body: { error: { code: 'internal_error' } } },
    });

    await t.call('/v1/profiles/wrong', json({}, 'PUT'));
    await t.call('/v1/profiles/wrong/env/ACME_TOKEN', json({ value: 'not-the-token' }, 'PUT'));
    const unauthorized = await call({
      provider: 'acme',
      group: 'tickets',
      command: 'create',
      input: { title: 'x' },
      profile: 'wrong',
    });
    expect(unauthorized.status).toBe(502);
    const why = await envelope(unauthorized);
    expect(why.code).toBe('provider_error');
    expect(why.message).toContain('refused the credentials the daemon sent');
    expect(JSON.stringify(why)).not.toContain('not-the-token');

    const down = await call({ provider: 'gone', group: 'misc', command: 'ping', input: {} });
    expect(down.status).toBe(502);
    const failure = await envelope(down);
    expect(failure.code).toBe('provider_error');
    expect(failure.message).toContain('plugin gone could not be called');
  });

  it('keeps a failed call under its Idempotency-Key: a retry replays it, the plugin runs once', async () => {
    const body = { provider: 'acme', group: 'tickets', command: 'crash', input: {} };
    const before = crashes;
    const send = () =>
      t.call('/v1/provider/call', json(body, 'POST', { 'idempotency-key': 'call-once' }));
    const first = await send();
    expect(first.status).toBe(502);
    const again = await send();
    expect(again.status).toBe(502);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(crashes - before).toBe(1);
  });

  it("a node token calls as its broker would: its profile's tools and env store only", async () => {
    await t.call('/v1/profiles/narrow', json({ tools: ['bash'] }, 'PUT'));
    const scopes = ['svc:llm', 'svc:act', 'acme:tickets'];
    const created = async (profile: string) => {
      const res = await t.call('/v1/nodes', json({ task: 'x', model: SCRIPTED, profile, scopes }));
      expect(res.status, await res.clone().text()).toBe(200);
      const { id } = (await res.json()) as { id: string };
      // As the daemon mints a broker's token.
      const side = openStore(join(t.home, 'svc.db'));
      try {
        return tokenService(side, eventLog(side)).mintNode(id, null, scopes).secret;
      } finally {
        side.db.close();
      }
    };
    const create = { provider: 'acme', group: 'tickets', command: 'create', input: { title: 'x' } };
    const narrow = await created('narrow');
    const cut = await call(create, narrow);
    expect(cut.status).toBe(403);
    expect(await envelope(cut)).toMatchObject({ code: 'forbidden', field: 'group' });
    const listed = (await (await t.call('/v1/providers/tools', { token: narrow })).json()) as {
      data: unknown[];
    };
    expect(listed.data).toEqual([]);
    // Another profile's env store is not the node's to use.
    const plain = await created('default');
    const other = await call({ ...create, profile: 'narrow' }, plain);
    expect(other.status).toBe(403);
    expect(await envelope(other)).toMatchObject({ code: 'forbidden', field: 'profile' });
    expect((await call(create, plain)).status).toBe(200);
  });

  it('never hands the shared token on, though the plugin echoes it in an error or a stream', async () => {
    for (const command of ['echo', 'echoes', 'escaped']) {
      const res = await call(
        { provider: 'acme', group: 'tickets', command, input: {} },
        appTickets,
      );
      const text = await res.text();
      expect(text, command).not.toContain(TOKEN);
      expect(text, command).toContain('Bearer [redacted]');
    }
    // the plugin did receive it
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("collects a streaming command's items", async () => {
    const res = await call(
      { provider: 'acme', group: 'tickets', command: 'list', input: {} },
      appTickets,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      provider: 'acme',
      group: 'tickets',
      command: 'list',
      output: null,
      items: [{ id: 'T-1' }, { id: 'T-2' }],
      truncated: false,
    });
  });
});
