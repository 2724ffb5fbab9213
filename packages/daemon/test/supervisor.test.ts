/**
 * Nodes on real broker processes, driven by the scripted provider: bash calls, a child node, a
 * wait that parks the parent until the child is done, and submitted results.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bash,
  createNode,
  eventually,
  expectOnceEach,
  getNode,
  isFinal,
  liveNodeTokens,
  nodeEvents,
  scripted,
  submit,
  toolResults,
  turnIndexes,
  waitForNode,
} from './broker-fixtures.ts';
import { daemonLog, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

describe('a scripted node on a real broker', () => {
  it('runs bash, spawns a child, waits for it and submits', async () => {
    // The child takes the default profile's model: a spawn names none, and a scripted parent's
    // turns are its own.
    const profile = await t.call(
      '/v1/profiles/default',
      json(
        {
          model: scripted('child', [
            bash('echo child-$((6 * 7))'),
            submit({ answer: 42 }, 'the child is done'),
          ]),
        },
        'PUT',
      ),
    );
    expect(profile.status).toBe(200);

    // Created by the owner with no scope list: null, the owner's vocabulary, for its children too.
    const parent = await createNode(t.call, {
      task: 'do the thing',
      model: scripted('parent', [
        bash('echo hello > out.txt && cat out.txt && pwd'),
        { text: 'spawning', tool_calls: [{ name: 'spawn', input: { task: 'compute 6*7' } }] },
        { tool_calls: [{ name: 'wait', input: {} }] },
        submit({ ok: true }, 'the parent is done'),
      ]),
    });
    expect(parent).toMatchObject({ state: 'queued', scopes: null });

    const done = await waitForNode(t.call, parent.id, isFinal);
    expect(done.state).toBe('done');
    expect(done.outcome).toMatchObject({ result: { ok: true }, summary: 'the parent is done' });
    expect(done.usage.turns).toBe(4);

    // Each turn recorded exactly once, though the parent's broker exited at the wait and a
    // second broker resumed it.
    expectOnceEach(await turnIndexes(t.call, parent.id), 4);
    const states = (await nodeEvents(t.call, parent.id, ['node.state'])).map(
      (e) => `${e.payload.action}:${e.payload.to}`,
    );
    expect(states).toEqual([
      'create:queued',
      'start:running',
      'wait:waiting',
      'wake:queued',
      'start:running',
      'submit:done',
    ]);

    const results = await toolResults(t.call, parent.id, 4);
    expect(results.map((r) => `${r.name}:${r.status}`)).toEqual([
      'bash:ok',
      'spawn:ok',
      'wait:ok',
      'submit:ok',
    ]);
    const bashOut = results[0]!.output as { stdout: string; exit_code: number };
    const worktree = join(t.home, 'worktrees', parent.id);
    expect(bashOut).toMatchObject({ exit_code: 0, stdout: `hello\n${worktree}\n` });
    expect(existsSync(join(worktree, 'out.txt'))).toBe(true);

    const childId = (results[1]!.output as { node_id: string }).node_id;
    const child = await getNode(t.call, childId);
    expect(child).toMatchObject({ parent_id: parent.id, state: 'done', scopes: null });
    expect(child.outcome?.result).toEqual({ answer: 42 });
    const waited = results[2]!.output as {
      children: { id: string; outcome: { result: unknown } }[];
    };
    expect(waited.children).toEqual([
      expect.objectContaining({
        id: childId,
        outcome: expect.objectContaining({ result: { answer: 42 } }),
      }),
    ]);
    const childBash = (await toolResults(t.call, childId))[0]!.output as { stdout: string };
    expect(childBash.stdout).toBe('child-42\n');
  });

  it("spawn names a child's model and profile; the spawn result says what the child runs", async () => {
    const worker = await t.call(
      '/v1/profiles/worker',
      json({ system_prompt: 'You work.', tools: ['submit'] }, 'PUT'),
    );
    expect(worker.status).toBe(200);
    const child = scripted('named-child', [submit({ from: 'child' }, 'child done')]);
    const parent = await createNode(t.call, {
      task: 'delegate',
      model: scripted('named-parent', [
        {
          tool_calls: [{ name: 'spawn', input: { task: 'work', profile: 'worker', model: child } }],
        },
        { tool_calls: [{ name: 'wait', input: {} }] },
        submit({ ok: true }),
      ]),
    });
    const done = await waitForNode(t.call, parent.id, isFinal);
    expect(done.state).toBe('done');
    const [spawned] = await toolResults(t.call, parent.id, 3);
    expect(spawned!.output).toMatchObject({
      profile: 'worker',
      model: { provider: 'scripted', model: 'named-child' },
    });
    const childNode = await getNode(t.call, (spawned!.output as { node_id: string }).node_id);
    expect(childNode).toMatchObject({ profile: 'worker', state: 'done' });
    expect(childNode.outcome?.result).toEqual({ from: 'child' });
  });

  it('with max_turns: N, the N-th turn still runs its tools: it submits', async () => {
    const node = await createNode(t.call, {
      task: 'two turns',
      budgets: { max_turns: 2 },
      model: scripted('tight', [bash('echo one'), submit({ ok: 2 })]),
    });
    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done).toMatchObject({
      state: 'done',
      usage: { turns: 2 },
      outcome: { result: { ok: 2 } },
    });
  });

  it('parks at a budget after the reaching turn ran its tools; raising it finishes the node', async () => {
    const node = await createNode(t.call, {
      task: 'bash, then submit',
      budgets: { max_turns: 1 },
      model: scripted('short', [bash('echo ran > ran.txt'), submit({ ok: 1 })]),
    });
    const parked = await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    expect(parked).toMatchObject({ waiting_on: { for: 'budget', budget: 'max_turns' } });
    expect(existsSync(join(t.home, 'worktrees', node.id, 'ran.txt'))).toBe(true);
    expect((await toolResults(t.call, node.id, 1)).map((r) => r.status)).toEqual(['ok']);
    const raised = await t.call(
      `/v1/nodes/${node.id}`,
      json({ budgets: { max_turns: 2 } }, 'PATCH'),
    );
    expect(raised.status).toBe(200);
    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done).toMatchObject({ state: 'done', usage: { turns: 2 } });
  });

  it('reports its slots in /v1/status', async () => {
    const status = (await (await t.call('/v1/status')).json()) as { brokers: unknown };
    expect(status.brokers).toEqual({ concurrency: 2, active: expect.any(Number), queued: 0 });
  });

  it('revokes every node token once its broker has ended', async () => {
    // The node is done before its broker process has exited.
    await eventually(async () => (await liveNodeTokens(t.call)) === 0, 5_000, 'no live node token');
  });

  it('keeps the node token and model key out of the broker log', async () => {
    const logs = join(t.home, 'logs', 'brokers');
    expect(existsSync(logs)).toBe(true);
    expect(await daemonLog(t.home)).not.toMatch(/svc_node_[A-Za-z0-9_-]{20}/);
  });
});
