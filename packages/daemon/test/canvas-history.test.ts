/**
 * `canvas.history` on a real daemon: full-text search (FTS5, kept current by triggers as turns
 * and tool results are recorded), grep with its bounds and refusals, a node's transcript, and
 * usage stats; each showing only the nodes the caller may see.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../src/nodes/store/nodes.ts';
import { openStore } from '../src/store/index.ts';
import { type NodesDaemon, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
let side: ReturnType<typeof openStore>;
let appToken: string;
let ops: Node;
let app: Node;

interface TurnSpec {
  input?: string[];
  text?: string;
  calls?: { id: string; name: string; input: unknown; output?: unknown }[];
  model?: { provider: string; model: string };
  usage?: { input_tokens: number; output_tokens: number };
  cost?: number | null;
}

/** Records turn `index` as the broker plane would, then the tool results after it. */
function turn(nodeId: string, index: number, spec: TurnSpec): void {
  const at = new Date().toISOString();
  side.turns.insert({
    node_id: nodeId,
    index,
    model: spec.model ?? { provider: 'scripted', model: 'replay' },
    input: (spec.input ?? []).map((text) => ({ role: 'user' as const, text, mail_seq: null })),
    text: spec.text ?? '',
    tool_calls: (spec.calls ?? []).map(({ id, name, input }) => ({ id, name, input })),
    usage: spec.usage ?? { input_tokens: 100, output_tokens: 20 },
    cost_usd: spec.cost ?? null,
    finish_reason: 'stop',
    started_at: at,
    finished_at: at,
    fingerprint: `${nodeId}-${index}`,
  });
  for (const call of spec.calls ?? []) {
    if (call.output === undefined) continue;
    side.turns.settleToolCall(nodeId, call.id, {
      status: 'ok',
      output: call.output,
      job_id: null,
      finished_at: at,
    });
  }
}

beforeAll(async () => {
  t = await startNodesDaemon();
  side = openStore(join(t.home, 'svc.db'));
  appToken = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'app-h' })).token;
  ops = await t.createNode({ task: 'roll out the service' });
  turn(ops.id, 1, {
    input: ['please deploy the service to staging'],
    text: 'The deployment to staging succeeded.\nNext: production.',
    cost: 0.25,
  });
  turn(ops.id, 2, {
    calls: [
      {
        id: 'call-1',
        name: 'bash',
        input: { command: 'kubectl rollout status' },
        output: { stdout: 'rollout complete zebra', exit_code: 0 },
      },
    ],
    model: { provider: 'openai', model: 'gpt-test' },
    usage: { input_tokens: 300, output_tokens: 40 },
  });
  turn(ops.id, 3, { text: 'All DONE here.' });
  app = await t.createNode({ task: 'front' }, appToken);
  turn(app.id, 1, { input: ['deploy the frontend'], text: 'frontend deployed' });
});

afterAll(async () => {
  side?.db.close();
  await t?.stop();
});

describe('canvas.history.search', () => {
  interface Hit {
    node_id: string;
    turn: number;
    title: string;
    snippet: string;
  }
  const search = async (query: string, token?: string) => {
    const res = await t.get(`/v1/canvas/history/search?${query}`, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data: Hit[]; has_more: boolean; next_cursor: string | null };
  };
  const where = (hits: Hit[]) => hits.map((h) => `${h.node_id}#${h.turn}`).sort();

  it('finds words in messages, answers, tool inputs and results recorded after their turn', async () => {
    const found = await search('q=deployment');
    expect(found.data).toEqual([
      expect.objectContaining({
        node_id: ops.id,
        turn: 1,
        title: 'roll out the service',
        snippet: expect.stringContaining('[deployment]'),
      }),
    ]);
    expect(where((await search('q=kubectl')).data)).toEqual([`${ops.id}#2`]);
    expect(where((await search('q=zebra')).data)).toEqual([`${ops.id}#2`]);
    expect(where((await search('q=deploy*')).data)).toEqual([`${ops.id}#1`, `${app.id}#1`].sort());
    // Every word must occur.
    expect(where((await search('q=deploy*%20frontend')).data)).toEqual([`${app.id}#1`]);
    // Characters that are FTS5 syntax are only words here.
    expect((await search('q=%22zebra%22%20OR%20(')).data).toHaveLength(0);
  });

  it('narrows to one node, pages, and shows an app only its own', async () => {
    expect(where((await search(`q=deploy*&node_id=${app.id}`)).data)).toEqual([`${app.id}#1`]);
    const first = await search('q=deploy*&limit=1');
    expect(first).toMatchObject({ has_more: true, next_cursor: '1' });
    const second = await search('q=deploy*&limit=1&after=1');
    expect(second.has_more).toBe(false);
    expect(where([...first.data, ...second.data])).toEqual([`${ops.id}#1`, `${app.id}#1`].sort());
    expect(where((await search('q=deploy*', appToken)).data)).toEqual([`${app.id}#1`]);
    const hidden = await t.get(`/v1/canvas/history/search?q=x&node_id=${ops.id}`, appToken);
    expect(hidden.status).toBe(404);
  });

  it('refuses a query with no word, or none at all', async () => {
    const punct = await t.get('/v1/canvas/history/search?q=%22%22%20!!');
    expect(punct.status).toBe(422);
    expect(punct.body.error.field).toBe('q');
    expect((await t.get('/v1/canvas/history/search')).status).toBe(422);
  });
});

describe('canvas.history.grep', () => {
  interface GrepHit {
    node_id: string;
    turn: number;
    where: string;
    line: string;
  }
  const grep = async (query: string, token?: string) => {
    const res = await t.get(`/v1/canvas/history/grep?${query}`, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as {
      data: GrepHit[];
      truncated: boolean;
      timed_out: boolean;
      scanned_turns: number;
    };
  };
  const p = (pattern: string) => `pattern=${encodeURIComponent(pattern)}`;

  it('answers matching lines, newest turns first, naming where they are', async () => {
    const res = await grep(p('deploy\\w*'));
    expect(res).toMatchObject({ truncated: false, timed_out: false });
    expect(res.data.map((h) => [h.node_id, h.turn, h.where, h.line])).toEqual([
      [app.id, 1, 'input', 'deploy the frontend'],
      [app.id, 1, 'text', 'frontend deployed'],
      [ops.id, 1, 'input', 'please deploy the service to staging'],
      [ops.id, 1, 'text', 'The deployment to staging succeeded.'],
    ]);
    const tool = await grep(p('rollout \\w+ zebra'));
    expect(tool.data).toEqual([
      expect.objectContaining({ node_id: ops.id, turn: 2, where: 'tool_call' }),
    ]);
    expect(tool.data[0]!.line).toMatch(/^bash .*kubectl.* → .*rollout complete zebra/);
  });

  it('matches case-insensitively when asked, and stops at the limit', async () => {
    expect((await grep(p('done'))).data).toHaveLength(0);
    expect((await grep(`${p('done')}&ignore_case=true`)).data).toHaveLength(1);
    const one = await grep(`${p('deploy')}&limit=1`);
    expect(one.data).toHaveLength(1);
    expect(one.truncated).toBe(true);
  });

  it('shows an app only its own nodes, and 404s a node it cannot see', async () => {
    const res = await grep(p('deploy'), appToken);
    expect(new Set(res.data.map((h) => h.node_id))).toEqual(new Set([app.id]));
    const hidden = await t.get(`/v1/canvas/history/grep?${p('x')}&node_id=${ops.id}`, appToken);
    expect(hidden.status).toBe(404);
  });

  it('refuses an invalid pattern, and one that nests repetition, with 422', async () => {
    for (const bad of ['(', '[a-', '*x']) {
      const res = await t.get(`/v1/canvas/history/grep?${p(bad)}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', field: 'pattern' });
      expect(res.body.error.message).toMatch(/not a valid regular expression/);
    }
    for (const catastrophic of ['(a+)+$', '(\\w*\\s?)*x', '(.*a){20}']) {
      const res = await t.get(`/v1/canvas/history/grep?${p(catastrophic)}`);
      expect(res.status, catastrophic).toBe(422);
      expect(res.body.error.message).toMatch(/exponential/);
    }
  });

  it('stops a pattern that runs away at the time bound, and runs two at most at once', async () => {
    const slow = await t.createNode({ task: 'slow' });
    turn(slow.id, 1, { text: `${'a'.repeat(40)}!` });
    const started = Date.now();
    const path = `/v1/canvas/history/grep?${p('(a|a)*b')}&node_id=${slow.id}`;
    const answers = await Promise.all([t.get(path), t.get(path), t.get(path)]);
    const ran = answers.filter((res) => res.status === 200);
    const refused = answers.filter((res) => res.status === 429);
    expect(ran).toHaveLength(2);
    for (const res of ran) {
      expect(res.body).toMatchObject({ data: [], truncated: true, timed_out: true });
    }
    expect(refused.map((res) => res.body.error.code)).toEqual(['rate_limited']);
    expect(Date.now() - started).toBeLessThan(15_000);
    // The daemon is free again at once, and greps run again.
    expect((await t.get('/v1/status')).status).toBe(200);
    expect((await grep(p('frontend'))).data.length).toBeGreaterThan(0);
  });
});

describe('canvas.history.read', () => {
  interface TranscriptTurn {
    index: number;
    model: string;
    entries: { role: string; text: string; truncated: boolean }[];
  }
  it("answers a node's turns as text entries, paged from a turn", async () => {
    const res = await t.get(`/v1/canvas/history/read?node_id=${ops.id}`);
    expect(res.status).toBe(200);
    const turns = res.body.data as TranscriptTurn[];
    expect(turns.map((x) => x.index)).toEqual([1, 2, 3]);
    expect(turns[0]!.entries).toEqual([
      { role: 'user', text: 'please deploy the service to staging', truncated: false },
      {
        role: 'assistant',
        text: 'The deployment to staging succeeded.\nNext: production.',
        truncated: false,
      },
    ]);
    expect(turns[1]).toMatchObject({ model: 'openai/gpt-test' });
    expect(turns[1]!.entries[0]!.text).toBe(
      'bash {"command":"kubectl rollout status"} → ok: {"stdout":"rollout complete zebra","exit_code":0}',
    );
    const page = await t.get(`/v1/canvas/history/read?node_id=${ops.id}&from_turn=2&limit=1`);
    expect(page.body).toMatchObject({ has_more: true, next_cursor: '3' });
    expect(page.body.data.map((x: TranscriptTurn) => x.index)).toEqual([2]);
  });

  it('404s a node the caller cannot see, 422s a missing node id', async () => {
    const hidden = await t.get(`/v1/canvas/history/read?node_id=${ops.id}`, appToken);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.field).toBe('node_id');
    const own = await t.get(`/v1/canvas/history/read?node_id=${app.id}`, appToken);
    expect(own.status).toBe(200);
    expect((await t.get('/v1/canvas/history/read')).status).toBe(422);
  });
});

describe('canvas.history.stats', () => {
  interface Totals {
    nodes: number;
    turns: number;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
  }
  const stats = async (query: string, token?: string) => {
    const res = await t.get(`/v1/canvas/history/stats?${query}`, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as {
      since: string | null;
      group_by: string;
      groups: (Totals & { key: string })[];
      totals: Totals;
      nodes_by_state: Record<string, number>;
    };
  };

  it('sums turns, tokens and cost by model, profile or day', async () => {
    const byModel = await stats('group_by=model');
    const scripted = byModel.groups.find((g) => g.key === 'scripted/replay')!;
    const openai = byModel.groups.find((g) => g.key === 'openai/gpt-test')!;
    expect(openai).toEqual({
      key: 'openai/gpt-test',
      nodes: 1,
      turns: 1,
      input_tokens: 300,
      output_tokens: 40,
      cost_usd: 0,
    });
    expect(scripted).toMatchObject({ nodes: 3, cost_usd: 0.25 });
    expect(byModel.totals.turns).toBe(byModel.groups.reduce((n, g) => n + g.turns, 0));
    const byProfile = await stats('group_by=profile');
    expect(byProfile.groups.map((g) => g.key)).toEqual(['default']);
    const byDay = await stats('');
    expect(byDay.group_by).toBe('day');
    expect(byDay.groups.map((g) => g.key)).toEqual([new Date().toISOString().slice(0, 10)]);
    expect(byDay.nodes_by_state.queued).toBeGreaterThanOrEqual(3);
  });

  it('counts from `since`, and shows an app only its own nodes', async () => {
    const future = await stats(`since=${encodeURIComponent('2999-01-01T00:00:00+02:00')}`);
    expect(future).toMatchObject({
      since: '2998-12-31T22:00:00.000Z',
      groups: [],
      totals: { nodes: 0, turns: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    });
    expect(Object.values(future.nodes_by_state).every((n) => n === 0)).toBe(true);
    const mine = await stats('group_by=model', appToken);
    expect(mine.totals).toMatchObject({ nodes: 1, turns: 1 });
    expect(mine.nodes_by_state).toMatchObject({ queued: 1, done: 0 });
  });

  it('refuses an unknown grouping or a bad time', async () => {
    expect((await t.get('/v1/canvas/history/stats?group_by=week')).status).toBe(422);
    expect((await t.get('/v1/canvas/history/stats?since=yesterday')).status).toBe(422);
    // Past 9999 in UTC: no stored timestamp compares with it (it counted every turn).
    const far = encodeURIComponent('9999-12-31T23:59:59-23:59');
    const beyond = await t.get(`/v1/canvas/history/stats?since=${far}`);
    expect(beyond.status).toBe(422);
    expect(beyond.body.error).toMatchObject({ code: 'validation_failed', field: 'since' });
  });
});
