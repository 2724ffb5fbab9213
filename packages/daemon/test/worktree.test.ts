/**
 * `nodes.worktree.close` and `.abandon` on nodes that ran on real brokers: the worktree a node's
 * bash wrote into, removed only once the node is final, close refusing while it holds files.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, isFinal, waitForNode } from './broker-fixtures.ts';
import { envelope, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

/** A node whose scripted model runs `command` in its worktree, then submits. */
async function ranNode(command: string): Promise<string> {
  const node = await createNode(t.call, {
    task: 'work in the worktree',
    model: {
      provider: 'scripted',
      model: 'replay',
      script: [
        { tool_calls: [{ name: 'bash', input: { command } }] },
        { tool_calls: [{ name: 'submit', input: { summary: 'made it' } }] },
      ],
    },
  });
  const done = await waitForNode(t.call, node.id, isFinal);
  expect(done.state).toBe('done');
  return node.id;
}

const worktree = (id: string) => join(t.home, 'worktrees', id);
const post = (id: string, action: 'close' | 'abandon', token?: string) =>
  t.call(`/v1/nodes/${id}/worktree/${action}`, { method: 'POST', ...(token && { token }) });

describe('nodes.worktree', () => {
  it('close removes the empty worktree of a final node', async () => {
    const id = await ranNode('true');
    expect(existsSync(worktree(id))).toBe(true);
    const res = await post(id, 'close');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      node_id: id,
      path: worktree(id),
      exists: false,
      removed: true,
      branch: null, // a plain directory
    });
    expect(existsSync(worktree(id))).toBe(false);
    // Again: nothing left to close, and the answer says this call removed nothing.
    const again = await post(id, 'close');
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ exists: false, removed: false });
  });

  it('close refuses while the worktree holds files; abandon discards them', async () => {
    const id = await ranNode('echo made > out.txt');
    expect(readFileSync(join(worktree(id), 'out.txt'), 'utf8')).toBe('made\n');
    const refused = await post(id, 'close');
    expect(refused.status).toBe(409);
    const error = await envelope(refused);
    expect(error).toMatchObject({ code: 'invalid_state', field: 'id' });
    expect(error.message).toMatch(/holds 1 entry/);
    expect(existsSync(join(worktree(id), 'out.txt'))).toBe(true);

    const abandoned = await post(id, 'abandon');
    expect(abandoned.status).toBe(200);
    expect(await abandoned.json()).toMatchObject({ node_id: id, exists: false });
    expect(existsSync(worktree(id))).toBe(false);
  });

  it('refuses a node that may still run, and changes nothing', async () => {
    // A node that yielded waits for mail, which would queue it for a broker in its worktree.
    const node = await createNode(t.call, {
      task: 'waits',
      model: {
        provider: 'scripted',
        model: 'replay',
        script: [
          { tool_calls: [{ name: 'bash', input: { command: 'echo wip > wip.txt' } }] },
          { tool_calls: [{ name: 'yield', input: { reason: 'a word first' } }] },
        ],
      },
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    for (const action of ['close', 'abandon'] as const) {
      const res = await post(node.id, action);
      expect(res.status).toBe(409);
      const error = await envelope(res);
      expect(error).toMatchObject({ code: 'invalid_state', field: 'id' });
      expect(error.message).toMatch(/is waiting/);
    }
    expect(readFileSync(join(worktree(node.id), 'wip.txt'), 'utf8')).toBe('wip\n');
  });

  it('abandon removes a link put in the worktree place, never what it points to', async () => {
    const id = await ranNode('true');
    const outside = join(t.home, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'keep.txt'), 'kept');
    rmSync(worktree(id), { recursive: true });
    symlinkSync(outside, worktree(id));
    expect((await post(id, 'close')).status).toBe(409); // a link is no empty worktree
    expect((await post(id, 'abandon')).status).toBe(200);
    expect(existsSync(worktree(id))).toBe(false);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('kept');
  });

  it('needs svc:act, and the node must be visible', async () => {
    const id = await ranNode('true');
    const { token } = await t.appToken(['svc:llm']);
    const denied = await post(id, 'abandon', token);
    expect(denied.status).toBe(403);
    expect(await envelope(denied)).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
    const { token: act } = await t.appToken(['svc:llm', 'svc:act']);
    expect((await post(id, 'abandon', act)).status).toBe(404); // the owner's node, not the app's
    expect(existsSync(worktree(id))).toBe(true);
    expect((await post('nd_01JABCDEFGHJKMNPQRSTVWXYZ0', 'close')).status).toBe(404);
  });
});
