/**
 * What a viewer session may change beyond reading, over real HTTP on TCP with a real login: it
 * steers nodes (message, interrupt, cancel, revive, fork, budgets) and starts nodes and runs,
 * but never one holding `svc:act` (bash and files), so no agent it starts runs a command for it.
 */
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNode,
  getNode,
  isFinal,
  type NodeDto,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, type RawResponse, rawRequest, startTestDaemon, type TestDaemon } from './helpers.ts';

const IDLE_BROKER = fileURLToPath(new URL('./fixtures/idle-broker.ts', import.meta.url));

type Session = (method: string, path: string, body?: unknown) => Promise<RawResponse>;

/** A fresh link's session as the viewer page holds it: its cookie and page key as headers. */
async function viewerLogin(t: TestDaemon): Promise<Record<string, string>> {
  const res = await t.call('/v1/viewer/links', json({}));
  const { url } = (await res.json()) as { url: string };
  const { host, port } = t.daemon.tcp!;
  const link = new URL(url);
  const login = await rawRequest({ host, port }, { path: link.pathname + link.search });
  expect(login.status).toBe(303);
  const set = login.headers['set-cookie'];
  const cookie = (Array.isArray(set) ? set[0] : set)!.split(';')[0]!;
  const key = String(login.headers.location).slice('/viewer/#key='.length);
  return { cookie, 'svc-viewer': key, origin: `http://127.0.0.1:${port}` };
}

/** Logs in through a fresh link and answers a caller that speaks as the viewer page does. */
async function viewerSession(t: TestDaemon): Promise<Session> {
  const headers = await viewerLogin(t);
  const { host, port } = t.daemon.tcp!;
  return (method, path, body) =>
    rawRequest(
      { host, port },
      {
        method,
        path,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
    );
}

const parsed = <T>(res: RawResponse) => JSON.parse(res.body) as T;
const errorOf = (res: RawResponse) =>
  parsed<{ error: { code: string; field?: string; message: string } }>(res).error;

async function nodeCount(t: TestDaemon): Promise<number> {
  const res = await t.call('/v1/nodes?limit=200');
  return ((await res.json()) as { data: unknown[] }).data.length;
}

describe('a viewer session on nodes a broker runs', () => {
  let t: TestDaemon;
  let as: Session;
  beforeAll(async () => {
    t = await startTestDaemon({ tcp: { host: '127.0.0.1', port: 0 }, brokers: { concurrency: 2 } });
    as = await viewerSession(t);
  });
  afterAll(() => t.stop());

  it('starts a node with the scopes it names, and that node has no bash', async () => {
    const res = await as('POST', '/v1/nodes', {
      task: 'try bash, then submit',
      scopes: ['svc:llm'],
      model: scripted('viewer', [toolCall('bash', { command: 'echo ran' }), submit({ ok: 1 })]),
    });
    expect(res.status, res.body).toBe(200);
    const node = parsed<NodeDto & { scopes: string[] }>(res);
    expect(node.scopes).toEqual(['svc:llm']);
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
    // The model asked for bash; the broker offered it no such tool, so nothing ran.
    const results = await toolResults(t.call, node.id, 1);
    expect(results.map((r) => `${r.name}:${r.status}`)).toEqual(['submit:ok']);
  });

  it("refuses a node, run or fork that would hold 'svc:act', or the owner's whole list, and makes none", async () => {
    const model = scripted('viewer', [submit({})]);
    const source = await createNode(t.call, { task: 'a source', model });
    await waitForNode(t.call, source.id, isFinal);
    const before = await nodeCount(t);
    for (const [path, body] of [
      ['/v1/nodes', { task: 'x', model }],
      ['/v1/nodes', { task: 'x', model, scopes: ['svc:llm', 'svc:act'] }],
      ['/v1/runs', { task: 'x', model }],
      ['/v1/runs', { task: 'x', model, scopes: ['svc:act', 'svc:llm'] }],
      [`/v1/nodes/${source.id}/fork`, {}],
      [`/v1/nodes/${source.id}/fork`, { scopes: ['svc:llm', 'svc:act'] }],
    ] as const) {
      const res = await as('POST', path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(403);
      expect(errorOf(res)).toMatchObject({ code: 'forbidden', field: 'scopes' });
    }
    expect(await nodeCount(t)).toBe(before);
  });

  it('starts a run and forks a node without svc:act', async () => {
    const model = scripted('viewer', [submit({ ok: true })]);
    const run = await as('POST', '/v1/runs', { task: 'a run', model, scopes: ['svc:llm'] });
    expect(run.status, run.body).toBe(200);
    const root = parsed<{ node_id: string }>(run).node_id;
    expect((await getNode(t.call, root)) as unknown).toMatchObject({ scopes: ['svc:llm'] });
    const fork = await as('POST', `/v1/nodes/${root}/fork`, { scopes: ['svc:llm'] });
    expect(fork.status, fork.body).toBe(200);
    expect(parsed<{ scopes: string[] }>(fork).scopes).toEqual(['svc:llm']);
  });

  it("raises a node's budget, and changes nothing else of it", async () => {
    const node = await createNode(t.call, {
      task: 'report, then submit',
      title: 'budgeted',
      budgets: { max_turns: 1 },
      model: scripted('short', [toolCall('report', { text: 'half way' }), submit({ ok: 1 })]),
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    const retitled = await as('PATCH', `/v1/nodes/${node.id}`, {
      title: 'renamed',
      budgets: { max_turns: 2 },
    });
    expect(retitled.status).toBe(403);
    expect(errorOf(retitled)).toMatchObject({ code: 'forbidden', field: 'title' });
    expect(await getNode(t.call, node.id)).toMatchObject({ title: 'budgeted', state: 'waiting' });
    const raised = await as('PATCH', `/v1/nodes/${node.id}`, { budgets: { max_turns: 2 } });
    expect(raised.status, raised.body).toBe(200);
    expect(await waitForNode(t.call, node.id, isFinal)).toMatchObject({ state: 'done' });
  });
});

describe("the viewer page's live view of a model writing", () => {
  let t: TestDaemon;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await startTestDaemon({
      tcp: { host: '127.0.0.1', port: 0 },
      brokers: { concurrency: 2 },
      // Keepalives often, so a stream notices a logout while its node is quiet.
      sseKeepaliveMs: 100,
    });
    headers = await viewerLogin(t);
  });
  afterAll(() => t.stop());

  /** Opens the live view; answers the status and, as it comes, the body until it ends. */
  function follow(id: string, extra: Record<string, string> = headers) {
    const { host, port } = t.daemon.tcp!;
    let body = '';
    let opened: () => void = () => {};
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const ended = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host, port, path: `/viewer/live/nodes/${id}`, headers: extra },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
            opened();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    return { open, ended };
  }

  it('relays the text as the model writes it, and ends with the broker', async () => {
    const text = 'Here is what I found, word by word.';
    const node = await createNode(t.call, {
      task: 'wait for a go, then write',
      // Holds the broker (running) until the test has the live view open; bounded at 20 s.
      model: scripted('live', [
        toolCall('bash', {
          command: 'for i in $(seq 1 400); do [ -f go ] && break; sleep 0.05; done',
        }),
        { text, tool_calls: [{ name: 'yield', input: {} }] },
      ]),
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'running');
    await waitForAttach(t, node.id);
    const live = follow(node.id);
    await live.open;
    writeFileSync(join(t.home, 'worktrees', node.id, 'go'), '');
    const { status, body } = await live.ended;
    expect(status).toBe(200);
    const frames = body.split('\n\n').filter((f) => f.startsWith('event: '));
    const deltas = frames
      .filter((f) => f.startsWith('event: text.delta\n'))
      .map((f) => (JSON.parse(f.split('\ndata: ')[1]!) as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    const kinds = frames.map((f) => f.slice('event: '.length, f.indexOf('\n')));
    expect(kinds).toContain('turn.started');
    expect(kinds).toContain('turn.recorded');
    expect(kinds).not.toContain('turn');
    expect(kinds.at(-1)).toBe('end');
  });

  it('ends at logout, while the node still runs', async () => {
    const node = await createNode(t.call, {
      task: 'wait for a go',
      model: scripted('quiet', [
        toolCall('bash', {
          command: 'for i in $(seq 1 400); do [ -f go ] && break; sleep 0.05; done',
        }),
        submit({}),
      ]),
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'running');
    await waitForAttach(t, node.id);
    const session = await viewerLogin(t);
    const live = follow(node.id, session);
    await live.open;
    const { host, port } = t.daemon.tcp!;
    const out = await rawRequest(
      { host, port },
      { method: 'POST', path: '/v1/viewer/logout', headers: session },
    );
    expect(out.status).toBe(200);
    const { status, body } = await live.ended;
    expect(status).toBe(200);
    expect(body.endsWith('event: end\ndata: {}\n\n')).toBe(true);
    expect((await getNode(t.call, node.id)).state).toBe('running');
    writeFileSync(join(t.home, 'worktrees', node.id, 'go'), '');
  });

  it('is the viewer session’s only: no page key or a bearer is 401; an unknown node 404; a node no broker runs 204', async () => {
    const node = await createNode(t.call, {
      task: 'done at once',
      model: scripted('x', [submit({})]),
    });
    await waitForNode(t.call, node.id, isFinal);
    const { cookie } = headers;
    const keyless = await follow(node.id, { cookie: cookie! }).ended;
    expect(keyless.status).toBe(401);
    const bearer = await follow(node.id, { authorization: `Bearer ${t.ownerToken}` }).ended;
    expect(bearer.status).toBe(401);
    expect(bearer.body).not.toContain(t.ownerToken);
    const unknown = await follow('nd_01AAAAAAAAAAAAAAAAAAAAAAAA').ended;
    expect(unknown.status).toBe(404);
    const bad = await follow('..%2F..%2Fstatus').ended;
    expect([400, 404]).toContain(bad.status);
    // A node no broker runs has nothing to follow: 204, the end, no error.
    const idle = await follow(node.id).ended;
    expect(idle.status).toBe(204);
    expect(idle.body).toBe('');
  });
});

/** Waits (bounded) until the node's broker has its viewer socket up. */
async function waitForAttach(t: TestDaemon, id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await t.call(`/v1/nodes/${id}/attach`, json({}))).status !== 200) {
    if (Date.now() > deadline) throw new Error(`no viewer socket for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a viewer session steering nodes', () => {
  let t: TestDaemon;
  let as: Session;
  let node: NodeDto;
  beforeAll(async () => {
    // One slot, held by an idle broker: every later node stays queued until the test moves it.
    t = await startTestDaemon({
      tcp: { host: '127.0.0.1', port: 0 },
      brokers: { concurrency: 1, entry: IDLE_BROKER },
    });
    as = await viewerSession(t);
    const model = scripted('idle', [{ text: 'x' }]);
    await createNode(t.call, { task: 'holds the only slot', model });
    node = await createNode(t.call, { task: 'steered from the viewer', model });
  });
  afterAll(() => t.stop());

  const state = async () => (await getNode(t.call, node.id)).state;

  it('interrupts, messages, cancels and revives a node', async () => {
    const interrupted = await as('POST', `/v1/nodes/${node.id}/interrupt`, { reason: 'hold on' });
    expect(interrupted.status, interrupted.body).toBe(200);
    expect(await state()).toBe('waiting');
    const mail = await as('POST', `/v1/nodes/${node.id}/messages`, { text: 'go on' });
    expect(mail.status, mail.body).toBe(200);
    expect(await state()).toBe('queued');
    const cancelled = await as('POST', `/v1/nodes/${node.id}/cancel`, {});
    expect(cancelled.status, cancelled.body).toBe(200);
    expect(await state()).toBe('cancelled');
    const revived = await as('POST', `/v1/nodes/${node.id}/revive`, { message: 'again' });
    expect(revived.status, revived.body).toBe(200);
    expect(await state()).toBe('queued');
  });

  it('gets the state machine’s 409 for a move the node’s state does not allow', async () => {
    const revive = await as('POST', `/v1/nodes/${node.id}/revive`, {});
    expect(revive.status).toBe(409);
    expect(errorOf(revive).code).toBe('invalid_state');
  });

  it('still runs no command, makes no cron, human request or token', async () => {
    for (const [path, body] of [
      ['/v1/bash', { command: 'true', cwd: '/' }],
      ['/v1/nodes/create-and-wait', { task: 'x', scopes: ['svc:llm'] }],
      ['/v1/crons', { schedule: '0 0 1 1 *', task: { task: 'x', scopes: ['svc:llm'] } }],
      ['/v1/connect', {}],
      ['/v1/viewer/links', {}],
      [`/v1/nodes/${node.id}/recycle`, { task: 'x' }],
    ] as const) {
      const res = await as('POST', path, body);
      expect(res.status, path).toBe(403);
      expect(errorOf(res).code).toBe('forbidden');
    }
  });
});
