/**
 * The broker control plane over HTTP, driven with the node tokens a stand-in broker received on
 * its stdin: who may call it, turn and tool-result records (ordered, idempotent, never doubled),
 * budgets, faults, jobs, reports, submit, the directive long-poll, and token revocation.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNode,
  eventually,
  getNode,
  nodeEvents,
  ok,
  scripted,
  waitForNode,
} from './broker-fixtures.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { TOOLS_ALWAYS, TOOLS_OF_ACT } from './tool-names.ts';

const IDLE_BROKER = fileURLToPath(new URL('./fixtures/idle-broker.ts', import.meta.url));
let t: TestDaemon;

beforeAll(async () => {
  // A slot per node launched here: stand-in brokers exit only when stopped.
  t = await startTestDaemon({ brokers: { concurrency: 24, entry: IDLE_BROKER } });
});
afterAll(async () => {
  await t?.stop();
});

interface Launch {
  node_id: string;
  token: string;
  socket_path: string;
  model: { provider: string; model: string; script?: unknown[] };
  env: Record<string, string>;
}

/** A queued node and the launch message its (stand-in) broker got. */
async function launched(extra: Record<string, unknown> = {}): Promise<Launch> {
  const node = await createNode(t.call, {
    task: 'be driven by hand',
    scopes: ['svc:llm', 'svc:act'],
    model: scripted('unused', [{ text: 'never played' }]),
    ...extra,
  });
  const file = join(t.home, 'worktrees', node.id, 'launch.json');
  await eventually(
    () => existsSync(file) && readFileSync(file, 'utf8') !== '',
    15_000,
    'launch.json',
  );
  return JSON.parse(readFileSync(file, 'utf8')) as Launch;
}

const as = (token: string | null) => ({ token });
const post = (body: unknown, token: string | null) => ({ ...json(body), ...as(token) });
const claimBody = { pid: 4242, broker_version: 'test' };

function turn(index: number, extra: Record<string, unknown> = {}) {
  const at = new Date().toISOString();
  return {
    index,
    model: { provider: 'scripted', model: 'unused' },
    input: index === 1 ? [{ role: 'user', text: 'be driven by hand' }] : [],
    text: `turn ${index}`,
    tool_calls: [{ id: `call_${index}`, name: 'bash', input: { command: 'true' } }],
    usage: { input_tokens: 3, output_tokens: 2 },
    cost_usd: null,
    finish_reason: 'tool-calls',
    started_at: at,
    finished_at: at,
    ...extra,
  };
}

describe('the launch message', () => {
  it('carries a node token bound to the node, the socket and the model', async () => {
    const launch = await launched();
    expect(launch.token).toMatch(/^svc_node_/);
    expect(launch.socket_path).toBe(t.daemon.socketPath);
    expect(launch.model).toMatchObject({ provider: 'scripted', model: 'unused' });
    const grant = await ok<{ kind: string; scopes: string[] }>(
      await t.call('/v1/grant', as(launch.token)),
    );
    expect(grant).toMatchObject({ kind: 'node', scopes: ['svc:llm', 'svc:act'] });
  });
});

describe('who may call the control plane', () => {
  let a: Launch;
  let b: Launch;
  beforeAll(async () => {
    [a, b] = await Promise.all([launched(), launched()]);
  });

  it('refuses another node’s token, the owner and an app with 403, no token with 401', async () => {
    const path = `/v1/nodes/${b.node_id}/broker/claim`;
    for (const token of [a.token, t.ownerToken, (await t.appToken(['svc:llm', 'svc:act'])).token]) {
      const res = await t.call(path, post(claimBody, token));
      expect(res.status).toBe(403);
      expect((await envelope(res)).code).toBe('forbidden');
    }
    expect((await t.call(path, post(claimBody, null))).status).toBe(401);
    const res = await t.call(`/v1/nodes/${b.node_id}/broker/directive`, as(a.token));
    expect(res.status).toBe(403);
  });

  it('lets the node’s own broker claim it once: queued → running', async () => {
    const session = await ok<{
      node: { id: string; state: string };
      tools: string[];
      turns: unknown[];
      directive: { action: string };
      system_prompt: string | null;
    }>(await t.call(`/v1/nodes/${a.node_id}/broker/claim`, post(claimBody, a.token)));
    expect(session.node).toMatchObject({ id: a.node_id, state: 'running' });
    expect(session.tools).toEqual([...TOOLS_OF_ACT, ...TOOLS_ALWAYS]);
    expect(session.turns).toEqual([]);
    expect(session.directive).toEqual({ action: 'continue', reason: null, cancel_jobs: [] });
    const again = await t.call(`/v1/nodes/${a.node_id}/broker/claim`, post(claimBody, a.token));
    expect(again.status).toBe(409);
    expect((await envelope(again)).code).toBe('invalid_state');
  });

  it('refuses bad bodies with a 4xx envelope', async () => {
    const path = `/v1/nodes/${a.node_id}/broker/turns`;
    const cases = [
      { ...json({}), body: '{not json' },
      json({ ...turn(1), surprise: true }),
      json({ ...turn(1), index: 0 }),
    ];
    for (const init of cases) {
      const res = await t.call(path, { ...init, ...as(a.token) });
      expect([400, 422]).toContain(res.status);
      await envelope(res);
    }
  });
});

describe('recording turns and tool results', () => {
  let n: Launch;
  const path = () => `/v1/nodes/${n.node_id}/broker`;
  beforeAll(async () => {
    n = await launched();
    await ok(await t.call(`${path()}/claim`, post(claimBody, n.token)));
  });

  it('takes only the next index; a repeat answers the first; another body conflicts', async () => {
    const early = await t.call(`${path()}/turns`, post(turn(2), n.token));
    expect(early.status).toBe(409);
    expect((await envelope(early)).code).toBe('conflict');

    const body = turn(1);
    const first = await ok<{ turn: { index: number }; directive: { action: string } }>(
      await t.call(`${path()}/turns`, post(body, n.token)),
    );
    expect(first.turn).toMatchObject({
      index: 1,
      tool_calls: [{ id: 'call_1', status: 'pending' }],
    });
    expect(first.directive.action).toBe('continue');
    const repeat = await ok(await t.call(`${path()}/turns`, post(body, n.token)));
    expect(repeat).toEqual(first);
    const other = await t.call(
      `${path()}/turns`,
      post({ ...body, text: 'something else' }, n.token),
    );
    expect(other.status).toBe(409);
    const reused = await t.call(
      `${path()}/turns`,
      post(turn(2, { tool_calls: [{ id: 'call_1', name: 'bash', input: {} }] }), n.token),
    );
    expect(reused.status).toBe(409);

    expect((await nodeEvents(t.call, n.node_id, ['node.turn'])).length).toBe(1);
    expect((await getNode(t.call, n.node_id)).usage).toMatchObject({
      turns: 1,
      input_tokens: 3,
      output_tokens: 2,
    });
  });

  it('settles a tool call once', async () => {
    const unknown = await t.call(
      `${path()}/tool-results`,
      post({ turn_index: 1, tool_call_id: 'nope', status: 'ok', output: 1 }, n.token),
    );
    expect(unknown.status).toBe(404);
    const body = { turn_index: 1, tool_call_id: 'call_1', status: 'ok', output: { exit_code: 0 } };
    const first = await ok<{ tool_call: { status: string; output: unknown } }>(
      await t.call(`${path()}/tool-results`, post(body, n.token)),
    );
    expect(first.tool_call).toMatchObject({ status: 'ok', output: { exit_code: 0 } });
    const again = await ok(
      await t.call(`${path()}/tool-results`, post({ ...body, output: 'changed' }, n.token)),
    );
    expect(again).toEqual(first);
    expect((await nodeEvents(t.call, n.node_id, ['node.tool'])).length).toBe(1);
  });

  it('records jobs and reports', async () => {
    const job = await ok<{ id: string; state: string }>(
      await t.call(
        `${path()}/jobs`,
        post({ state: 'running', kind: 'bash', title: 'make' }, n.token),
      ),
    );
    expect(job).toMatchObject({ state: 'running', node_id: n.node_id });
    const end = { state: 'done', id: job.id, exit_code: 0 };
    const done = await ok(await t.call(`${path()}/jobs`, post(end, n.token)));
    expect(done).toMatchObject({ state: 'done', exit_code: 0 });
    expect(
      await ok(await t.call(`${path()}/jobs`, post({ ...end, state: 'failed' }, n.token))),
    ).toEqual(done);
    const missing = await t.call(`${path()}/jobs`, post({ ...end, id: newId('job') }, n.token));
    expect(missing.status).toBe(404);

    const report = await ok(
      await t.call(`${path()}/reports`, post({ text: 'half way', data: { pct: 50 } }, n.token)),
    );
    expect(report).toMatchObject({
      seq: 1,
      node_id: n.node_id,
      text: 'half way',
      data: { pct: 50 },
    });
    expect(
      (await nodeEvents(t.call, n.node_id, ['node.report', 'node.job'])).map((e) => e.kind),
    ).toEqual(['node.job', 'node.job', 'node.report']);
  });

  it('submits the result: the node is done and the broker told to stop', async () => {
    const node = await ok<{ state: string }>(
      await t.call(`${path()}/result`, post({ summary: 'all good' }, n.token)),
    );
    expect(node.state).toBe('done');
    const directive = await ok(await t.call(`${path()}/directive`, as(n.token)));
    expect(directive).toMatchObject({ action: 'cancel' });
    const late = await t.call(`${path()}/turns`, post(turn(2), n.token));
    expect(late.status).toBe(409);
  });
});

describe('what a record brings along (one request, one transaction)', () => {
  it("a tool result settles its job and claims the next turn's mail; a turn acknowledges its mail", async () => {
    const n = await launched();
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    await ok(await t.call(`${at}/turns`, post(turn(1), n.token)));
    const job = await ok<{ id: string }>(
      await t.call(`${at}/jobs`, post({ state: 'running', kind: 'bash', title: 'true' }, n.token)),
    );
    const mail = await ok<{ seq: number }>(
      await t.call(`/v1/nodes/${n.node_id}/messages`, post({ text: 'hi' }, t.ownerToken)),
    );
    const result = { turn_index: 1, tool_call_id: 'call_1', status: 'ok', output: 0 };

    // A job's end needs its job: refused, and nothing recorded.
    const bad = await t.call(
      `${at}/tool-results`,
      post({ ...result, job_end: { state: 'done', exit_code: 0 } }, n.token),
    );
    expect(bad.status).toBe(400);
    expect(await envelope(bad)).toMatchObject({ code: 'invalid_request', field: 'job_end' });
    expect(await nodeEvents(t.call, n.node_id, ['node.tool'])).toEqual([]);

    const body = { ...result, job_id: job.id, job_end: { state: 'done', exit_code: 0 } };
    const recorded = await ok<{ tool_call: { status: string }; mail: { seq: number }[] }>(
      await t.call(`${at}/tool-results`, post({ ...body, claim_mail: true }, n.token)),
    );
    expect(recorded.tool_call).toMatchObject({ status: 'ok', job_id: job.id });
    expect(recorded.mail).toMatchObject([{ seq: mail.seq, text: 'hi', state: 'claimed' }]);
    const events = await nodeEvents(t.call, n.node_id, ['node.job', 'node.tool']);
    expect(events.map((e) => e.kind)).toEqual(['node.job', 'node.job', 'node.tool']);
    expect(events[1]!.payload).toMatchObject({ job: { state: 'done', exit_code: 0 } });
    // A repeat answers the record; the job, already ended, is left as it is.
    const again = await ok<Record<string, unknown>>(
      await t.call(
        `${at}/tool-results`,
        post({ ...body, job_end: { state: 'failed', exit_code: 1 } }, n.token),
      ),
    );
    expect(again.tool_call).toEqual(recorded.tool_call);
    expect(again).not.toHaveProperty('mail');
    expect((await nodeEvents(t.call, n.node_id, ['node.job'])).length).toBe(2);

    const input = [{ role: 'user', text: 'hi', mail_seq: mail.seq }];
    await ok(await t.call(`${at}/turns`, post(turn(2, { input }), n.token)));
    // Acknowledged with the turn: no claim hands it out again.
    const claim = await ok<{ data: unknown[] }>(
      await t.call(`/v1/nodes/${n.node_id}/mail/claim`, post({}, n.token)),
    );
    expect(claim.data).toEqual([]);
  });

  it('a record starts the job of the call after it: a turn its first, a result the next', async () => {
    const n = await launched();
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const calls = [
      { id: 'call_a', name: 'bash', input: { command: 'make' } },
      { id: 'call_b', name: 'bash', input: { command: 'make test' } },
    ];
    const body = turn(1, { tool_calls: calls, next_job: { kind: 'bash', title: 'make' } });
    const recorded = await ok<{ job: { id: string } }>(
      await t.call(`${at}/turns`, post(body, n.token)),
    );
    expect(recorded.job).toMatchObject({ node_id: n.node_id, state: 'running', title: 'make' });
    // A retry is the same turn: it answers the record and starts no second job.
    const repeat = await ok<Record<string, unknown>>(
      await t.call(`${at}/turns`, post(body, n.token)),
    );
    expect(repeat).not.toHaveProperty('job');
    expect(repeat.turn).toEqual((recorded as Record<string, unknown>).turn);

    const first = {
      turn_index: 1,
      tool_call_id: 'call_a',
      status: 'ok',
      output: 0,
      job_id: recorded.job.id,
      job_end: { state: 'done', exit_code: 0 },
      next_job: { kind: 'bash', title: 'make test' },
    };
    const settled = await ok<{ job: { id: string } }>(
      await t.call(`${at}/tool-results`, post(first, n.token)),
    );
    expect(settled.job).toMatchObject({ state: 'running', title: 'make test' });
    const again = await ok<Record<string, unknown>>(
      await t.call(`${at}/tool-results`, post(first, n.token)),
    );
    expect(again).not.toHaveProperty('job');
    const jobs = await nodeEvents(t.call, n.node_id, ['node.job']);
    expect(jobs.map((e) => (e.payload.job as { title: string; state: string }).state)).toEqual([
      'running',
      'done',
      'running',
    ]);
  });

  it('starts no job for a broker told to stop', async () => {
    const n = await launched({ budgets: { max_turns: 1 } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    await ok(await t.call(`${at}/turns`, post(turn(1), n.token)));
    const result = { turn_index: 1, tool_call_id: 'call_1', status: 'ok', output: 0 };
    const parked = await ok<Record<string, unknown>>(
      await t.call(
        `${at}/tool-results`,
        post({ ...result, next_job: { kind: 'bash', title: 'make' } }, n.token),
      ),
    );
    expect(parked.directive).toMatchObject({ action: 'park' });
    expect(parked).not.toHaveProperty('job');
    expect(await nodeEvents(t.call, n.node_id, ['node.job'])).toEqual([]);
  });

  it("a result makes its call's report with it, once", async () => {
    const n = await launched();
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const calls = [{ id: 'call_r', name: 'report', input: { text: 'half way' } }];
    await ok(await t.call(`${at}/turns`, post(turn(1, { tool_calls: calls }), n.token)));
    const body = {
      turn_index: 1,
      tool_call_id: 'call_r',
      status: 'ok',
      output: { reported: true },
      report: { text: 'half way', data: { pct: 50 } },
    };
    // A report the route would refuse is refused with the result: nothing recorded.
    const bad = await t.call(
      `${at}/tool-results`,
      post({ ...body, report: { text: '' } }, n.token),
    );
    expect(bad.status).toBe(422);
    expect(await nodeEvents(t.call, n.node_id, ['node.tool', 'node.report'])).toEqual([]);

    await ok(await t.call(`${at}/tool-results`, post(body, n.token)));
    await ok(await t.call(`${at}/tool-results`, post(body, n.token)));
    const events = await nodeEvents(t.call, n.node_id, ['node.tool', 'node.report']);
    expect(events.map((e) => e.kind)).toEqual(['node.report', 'node.tool']);
    expect(events[0]!.payload).toMatchObject({ report: { text: 'half way', data: { pct: 50 } } });
  });

  it('a turn settles the calls that are records with it: one request, one transaction', async () => {
    const n = await launched();
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const mail = await ok<{ seq: number }>(
      await t.call(`/v1/nodes/${n.node_id}/messages`, post({ text: 'hi' }, t.ownerToken)),
    );
    const calls = [
      { id: 'call_r', name: 'report', input: { text: 'half way' } },
      { id: 'call_x', name: 'nope', error: 'no such tool' },
    ];
    const result = (id: string) => ({
      tool_call_id: id,
      status: 'ok',
      output: { reported: true },
      report: { text: 'half way' },
    });
    // A result for no call of the turn, a call twice, or a call that cannot run: refused whole.
    for (const results of [
      [result('call_zz')],
      [result('call_r'), result('call_r')],
      [result('call_x')],
    ]) {
      const bad = await t.call(
        `${at}/turns`,
        post(turn(1, { tool_calls: calls, results, claim_mail: true }), n.token),
      );
      expect(bad.status).toBe(400);
      expect(await envelope(bad)).toMatchObject({ code: 'invalid_request', field: 'results' });
    }
    expect(await nodeEvents(t.call, n.node_id, ['node.turn', 'node.report'])).toEqual([]);

    const body = turn(1, { tool_calls: calls, results: [result('call_r')], claim_mail: true });
    const recorded = await ok<{ turn: { tool_calls: unknown[] }; mail: { seq: number }[] }>(
      await t.call(`${at}/turns`, post(body, n.token)),
    );
    expect(recorded.turn.tool_calls).toMatchObject([
      { id: 'call_r', status: 'ok', output: { reported: true } },
      { id: 'call_x', status: 'error' },
    ]);
    expect(recorded.mail).toMatchObject([{ seq: mail.seq, state: 'claimed' }]);
    // A retry answers the turn as it is: no second report, no claim.
    const repeat = await ok<Record<string, unknown>>(
      await t.call(`${at}/turns`, post(body, n.token)),
    );
    expect(repeat.turn).toEqual(recorded.turn);
    expect(repeat).not.toHaveProperty('mail');
    const events = await nodeEvents(t.call, n.node_id, ['node.turn', 'node.report', 'node.tool']);
    expect(events.map((e) => e.kind)).toEqual(['node.turn', 'node.report', 'node.tool']);
  });

  it('a turn whose inline results reach a budget parks, and claims no mail', async () => {
    const n = await launched({ budgets: { max_turns: 1 } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    await ok(await t.call(`/v1/nodes/${n.node_id}/messages`, post({ text: 'hi' }, t.ownerToken)));
    const calls = [{ id: 'call_r', name: 'report', input: { text: 'x' } }];
    const results = [{ tool_call_id: 'call_r', status: 'ok', output: 1, report: { text: 'x' } }];
    const parked = await ok<Record<string, unknown>>(
      await t.call(
        `${at}/turns`,
        post(turn(1, { tool_calls: calls, results, claim_mail: true }), n.token),
      ),
    );
    expect(parked.directive).toMatchObject({ action: 'park' });
    expect(parked).not.toHaveProperty('mail');
    expect((await getNode(t.call, n.node_id)).state).toBe('waiting');
  });

  it('a turn whose last call submits is settled with its outcome: one request, the outcome last', async () => {
    const n = await launched();
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const calls = [
      { id: 'call_r', name: 'report', input: { text: 'nearly' } },
      { id: 'call_s', name: 'submit', input: { summary: 'all good' } },
    ];
    const results = [
      { tool_call_id: 'call_r', status: 'ok', output: 1, report: { text: 'nearly' } },
      { tool_call_id: 'call_s', status: 'ok', output: 'ok', submit: { summary: 'all good' } },
    ];
    const body = turn(1, { tool_calls: calls, results, claim_mail: true });
    const answer = await ok<{ turn: { tool_calls: unknown[] }; directive: { action: string } }>(
      await t.call(`${at}/turns`, post(body, n.token)),
    );
    expect(answer.directive.action).toBe('cancel');
    expect(answer).not.toHaveProperty('mail');
    expect(answer.turn.tool_calls).toMatchObject([
      { id: 'call_r', status: 'ok' },
      { id: 'call_s', status: 'ok', output: { submitted: true } },
    ]);
    const node = await getNode(t.call, n.node_id);
    expect(node).toMatchObject({ state: 'done', outcome: { summary: 'all good' } });
    const kinds = ['node.turn', 'node.report', 'node.tool', 'node.state', 'node.outcome'];
    const events = await nodeEvents(t.call, n.node_id, kinds);
    const turnOn = events.findIndex((e) => e.kind === 'node.turn');
    expect(events.slice(turnOn).map((e) => e.kind)).toEqual([
      'node.turn',
      'node.report',
      'node.tool',
      'node.tool',
      'node.state',
      'node.outcome',
    ]);
    // A retry answers the turn as it is: the node stays done, no second outcome.
    const repeat = await ok<{ turn: unknown }>(await t.call(`${at}/turns`, post(body, n.token)));
    expect(repeat.turn).toEqual(answer.turn);
    expect(await nodeEvents(t.call, n.node_id, ['node.outcome'])).toHaveLength(1);
  });

  it('a refused inline submit settles its call as the error the model reads; the node runs on', async () => {
    const output_schema = { type: 'object', required: ['files'] };
    const n = await launched({ output_schema });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const calls = [{ id: 'call_s', name: 'submit', input: { summary: 'no result' } }];
    const results = [
      { tool_call_id: 'call_s', status: 'ok', output: 'ok', submit: { summary: 'no result' } },
    ];
    const answer = await ok<{ turn: { tool_calls: unknown[] }; directive: { action: string } }>(
      await t.call(`${at}/turns`, post(turn(1, { tool_calls: calls, results }), n.token)),
    );
    expect(answer.directive.action).toBe('continue');
    expect(answer.turn.tool_calls).toMatchObject([
      { id: 'call_s', status: 'error', output: expect.stringMatching(/^validation_failed: /) },
    ]);
    const node = await getNode(t.call, n.node_id);
    expect(node).toMatchObject({ state: 'running', outcome: null });
    const events = await nodeEvents(t.call, n.node_id, ['node.outcome', 'node.state']);
    expect(events.map((e) => e.payload.to)).toEqual(['queued', 'running']);
  });

  it('a refused submit request changes nothing: its call stays pending, the node runs', async () => {
    const n = await launched({ output_schema: { type: 'object', required: ['files'] } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const calls = [{ id: 'call_s', name: 'submit', input: { summary: 'no result' } }];
    await ok(await t.call(`${at}/turns`, post(turn(1, { tool_calls: calls }), n.token)));
    const refused = await t.call(`${at}/result`, post({ summary: 'no result' }, n.token));
    expect(refused.status).toBe(422);
    expect((await envelope(refused)).code).toBe('validation_failed');
    expect(await getNode(t.call, n.node_id)).toMatchObject({ state: 'running', outcome: null });
    expect(await nodeEvents(t.call, n.node_id, ['node.tool', 'node.outcome'])).toEqual([]);
  });

  it('the claim answers the mail the first turn reads', async () => {
    const n = await launched();
    const at = `/v1/nodes/${n.node_id}/broker`;
    const mail = await ok<{ seq: number }>(
      await t.call(`/v1/nodes/${n.node_id}/messages`, post({ text: 'first' }, t.ownerToken)),
    );
    const session = await ok<{ mail: unknown[] }>(
      await t.call(`${at}/claim`, post(claimBody, n.token)),
    );
    expect(session.mail).toMatchObject([{ seq: mail.seq, text: 'first', state: 'claimed' }]);
  });

  it('claims no mail for a broker told to stop', async () => {
    const n = await launched({ budgets: { max_turns: 1 } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    await ok(await t.call(`/v1/nodes/${n.node_id}/messages`, post({ text: 'hi' }, t.ownerToken)));
    await ok(await t.call(`${at}/turns`, post(turn(1), n.token)));
    const result = { turn_index: 1, tool_call_id: 'call_1', status: 'ok', output: 0 };
    const parked = await ok<Record<string, unknown>>(
      await t.call(`${at}/tool-results`, post({ ...result, claim_mail: true }, n.token)),
    );
    expect(parked.directive).toMatchObject({ action: 'park' });
    expect(parked).not.toHaveProperty('mail');
  });
});

describe('budgets, faults and directives', () => {
  it('parks at a budget only once the turn that reached it has its results in', async () => {
    const n = await launched({ budgets: { max_turns: 1 } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const recorded = await ok<{ directive: { action: string } }>(
      await t.call(`${at}/turns`, post(turn(1), n.token)),
    );
    // The turn reached max_turns, but its call still runs.
    expect(recorded.directive.action).toBe('continue');
    expect((await getNode(t.call, n.node_id)).state).toBe('running');

    const result = { turn_index: 1, tool_call_id: 'call_1', status: 'ok', output: 'fine' };
    const answer = await ok<{ directive: { action: string; reason: string } }>(
      await t.call(`${at}/tool-results`, post(result, n.token)),
    );
    expect(answer.directive.action).toBe('park');
    expect(answer.directive.reason).toMatch(/budget reached: 1 of 1 turns used \(max_turns\)/);
    expect(await getNode(t.call, n.node_id)).toMatchObject({
      state: 'waiting',
      waiting_on: { for: 'budget', budget: 'max_turns' },
    });

    // A message wakes it; the claim that follows parks it again before any model call.
    await ok(await t.call(`/v1/nodes/${n.node_id}/messages`, json({ text: 'go on' })));
    expect((await getNode(t.call, n.node_id)).state).toBe('queued');
    const session = await ok<{ node: { state: string }; directive: { action: string } }>(
      await t.call(`${at}/claim`, post(claimBody, n.token)),
    );
    expect(session.directive.action).toBe('park');
    expect(session.node.state).toBe('waiting');
    const states = (await nodeEvents(t.call, n.node_id, ['node.state'])).map(
      (e) => `${e.payload.action}:${e.payload.to}`,
    );
    expect(states.slice(-3)).toEqual([
      'message:queued',
      'start:running',
      'budget_exhausted:waiting',
    ]);

    // Raised: the node is queued again and its claim answers continue.
    const raised = await t.call(
      `/v1/nodes/${n.node_id}`,
      json({ budgets: { max_turns: 3 } }, 'PATCH'),
    );
    expect(((await raised.json()) as { state: string }).state).toBe('queued');
    const resumed = await ok<{ directive: { action: string } }>(
      await t.call(`${at}/claim`, post(claimBody, n.token)),
    );
    expect(resumed.directive.action).toBe('continue');
  });

  it('parks at the record of a turn without calls that reaches a budget', async () => {
    const n = await launched({ budgets: { max_tokens: 5 } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const answer = await ok<{ directive: { action: string; reason: string } }>(
      await t.call(`${at}/turns`, post(turn(1, { tool_calls: [] }), n.token)),
    );
    expect(answer.directive).toMatchObject({
      action: 'park',
      reason: expect.stringMatching(/5 of 5 tokens used \(max_tokens\)/),
    });
  });

  it("takes the submit call's own result after the node is done, in the turn that reached max_turns", async () => {
    const n = await launched({ budgets: { max_turns: 1 } });
    const at = `/v1/nodes/${n.node_id}/broker`;
    await ok(await t.call(`${at}/claim`, post(claimBody, n.token)));
    const calls = [{ id: 'call_submit', name: 'submit', input: { summary: 'done' } }];
    await ok(await t.call(`${at}/turns`, post(turn(1, { tool_calls: calls }), n.token)));
    const done = await ok<{ state: string }>(
      await t.call(`${at}/result`, post({ summary: 'done' }, n.token)),
    );
    expect(done.state).toBe('done');
    const body = { turn_index: 1, tool_call_id: 'call_submit', status: 'ok', output: 'ok' };
    const answer = await ok<{ tool_call: { status: string }; directive: { action: string } }>(
      await t.call(`${at}/tool-results`, post(body, n.token)),
    );
    expect(answer).toMatchObject({ tool_call: { status: 'ok' }, directive: { action: 'cancel' } });
    expect((await getNode(t.call, n.node_id)).state).toBe('done');
  });

  it('fails the node on a fatal fault', async () => {
    const n = await launched();
    await ok(await t.call(`/v1/nodes/${n.node_id}/broker/claim`, post(claimBody, n.token)));
    const fault = { code: 'auth_failed', message: 'the key was refused', fatal: true };
    const answer = await ok<{
      node: { state: string; outcome: { error: unknown } };
      directive: { action: string };
    }>(await t.call(`/v1/nodes/${n.node_id}/broker/faults`, post(fault, n.token)));
    expect(answer.node.state).toBe('failed');
    // A refused key is said with the node's provider and the fix.
    expect(answer.node.outcome.error).toEqual({
      code: 'auth_failed',
      message: expect.stringMatching(/ refused the stored credentials \(the key was refused\)/),
    });
    expect(answer.directive.action).toBe('cancel');
  });

  it('relaunches the node on a non-fatal fault', async () => {
    const n = await launched();
    await ok(await t.call(`/v1/nodes/${n.node_id}/broker/claim`, post(claimBody, n.token)));
    const fault = { code: 'provider_rate_limited', message: 'slow down', fatal: false };
    const answer = await ok<{ node: { state: string }; directive: { action: string } }>(
      await t.call(`/v1/nodes/${n.node_id}/broker/faults`, post(fault, n.token)),
    );
    expect(answer.node.state).toBe('queued');
    expect(answer.directive.action).toBe('interrupt');
    const [event] = await nodeEvents(t.call, n.node_id, ['node.fault']);
    expect(event!.payload.fault).toMatchObject({ ...fault, at: expect.any(String) });
  });

  it("answers a waiting directive poll at once when one of the node's jobs is cancelled", async () => {
    const n = await launched();
    await ok(await t.call(`/v1/nodes/${n.node_id}/broker/claim`, post(claimBody, n.token)));
    const job = await ok<{ id: string }>(
      await t.call(
        `/v1/nodes/${n.node_id}/broker/jobs`,
        post({ state: 'running', kind: 'bash', title: 'sleep 30' }, n.token),
      ),
    );
    const started = performance.now();
    const polled = t.call(`/v1/nodes/${n.node_id}/broker/directive?wait_s=30`, as(n.token));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await ok(await t.call(`/v1/nodes/${n.node_id}/jobs/${job.id}/cancel`, json({})));
    // A cancel request records no event: the poll is woken all the same, not left to its end.
    expect(await ok(await polled)).toMatchObject({ action: 'continue', cancel_jobs: [job.id] });
    expect(performance.now() - started).toBeLessThan(5_000);
    await ok(await t.call(`/v1/nodes/${n.node_id}/cancel`, json({})));
  });

  it('long-polls the directive: continue after wait_s, at once when the node is cancelled', async () => {
    const n = await launched();
    await ok(await t.call(`/v1/nodes/${n.node_id}/broker/claim`, post(claimBody, n.token)));
    let started = performance.now();
    const idle = await ok(
      await t.call(`/v1/nodes/${n.node_id}/broker/directive?wait_s=1`, as(n.token)),
    );
    expect(idle).toMatchObject({ action: 'continue' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);

    started = performance.now();
    const polled = t.call(`/v1/nodes/${n.node_id}/broker/directive?wait_s=30`, as(n.token));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await ok(await t.call(`/v1/nodes/${n.node_id}/cancel`, json({ reason: 'stop now' })));
    expect(await ok(await polled)).toMatchObject({ action: 'cancel', reason: 'stop now' });
    expect(performance.now() - started).toBeLessThan(5_000);

    // The broker has ended, and its token with it.
    await waitForNode(t.call, n.node_id, (node) => node.state === 'cancelled');
    await eventually(
      async () =>
        (await t.call(`/v1/nodes/${n.node_id}/broker/directive`, as(n.token))).status === 401,
      5_000,
      'the node token revoked',
    );
  });
});
