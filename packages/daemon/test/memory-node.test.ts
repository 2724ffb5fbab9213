/**
 * `memory_read`, `memory_list`, `memory_write` end to end on a real broker with the scripted
 * model: the tools call the daemon's memory routes with the node's token, so the node reaches its
 * own space and its app's without a scope, the person's public documents, writes where its memory
 * scopes allow, and reads every refusal as a tool error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFinal, ok, scripted, submit, toolResults, waitForNode } from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

const put = (body: unknown) => t.call('/v1/memory/document', json(body, 'PUT'));

describe('the memory tools', () => {
  it("reach the node's space, its app's, the person's as its scopes allow; refusals are tool errors", async () => {
    await ok(await put({ path: 'prefs/food.md', privacy: 'public', content: 'likes tea' }));
    await ok(await put({ path: 'prefs/health.md', privacy: 'private', content: 'secret' }));
    const { token } = await t.appToken(['svc:llm', 'svc:act', 'svc:memory:rw:user:/prefs'], {
      app_id: 'diary',
    });
    const res = await t.call('/v1/nodes', {
      ...json({
        task: 'remember',
        model: scripted('memo', [
          {
            tool_calls: [
              {
                name: 'memory_write',
                input: { space: 'node', path: 'plan.md', content: 'step 1' },
              },
              {
                name: 'memory_write',
                input: { space: 'app', path: 'shared.md', content: 'for all', kind: 'preference' },
              },
              { name: 'memory_read', input: { path: 'prefs/food.md' } },
              { name: 'memory_read', input: { path: 'prefs/health.md' } },
              { name: 'memory_list', input: { prefix: 'prefs/', limit: 10 } },
              { name: 'memory_write', input: { path: 'prefs/drink.md', content: 'water' } },
              { name: 'memory_write', input: { path: 'notes/x.md', content: 'x' } },
              { name: 'memory_list', input: { space: 'app:other' } },
              { name: 'memory_read', input: { path: '../escape' } },
            ],
          },
          submit('remembered'),
        ]),
      }),
      token,
    });
    const node = await ok<{ id: string }>(res);
    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done.state).toBe('done');

    const results = await toolResults(t.call, node.id, 10);
    const byIndex = results.filter((r) => r.name.startsWith('memory_'));
    expect(byIndex.map((r) => r.status)).toEqual([
      'ok',
      'ok',
      'ok',
      'error',
      'ok',
      'ok',
      'error',
      'error',
      'error',
    ]);
    const [mine, shared, food, hidden, listed, drink, notes, other, escaped] = byIndex.map(
      (r) => r.output,
    );
    expect(mine).toMatchObject({ space: `node:${node.id}`, path: 'plan.md', version: 1 });
    expect(shared).toMatchObject({ space: 'app:diary', kind: 'preference' });
    expect(food).toMatchObject({ content: 'likes tea', privacy: 'public' });
    expect(hidden).toMatch(/^not_found: /);
    expect(listed).toMatchObject({ data: [{ path: 'prefs/food.md' }], has_more: false });
    expect(drink).toMatchObject({ space: 'user', privacy: 'public' });
    expect(notes).toMatch(/^scope_missing: .*svc:memory:rw:user:\/notes\/x\.md/);
    expect(other).toMatch(/^scope_missing: .*svc:memory:read:app:other/);
    expect(escaped).toMatch(/^validation_failed: /);

    // What the node wrote is there, written as the node.
    const plan = await ok<{ content: string }>(
      await t.call(`/v1/memory/document?space=node:${node.id}&path=plan.md`),
    );
    expect(plan.content).toBe('step 1');
    const appView = await ok<{ data: { path: string }[] }>(
      await t.call('/v1/memory?space=app:diary', { token }),
    );
    expect(appView.data.map((d) => d.path)).toEqual(['shared.md']);
  });
});
