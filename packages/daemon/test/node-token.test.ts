/**
 * A node token speaks for a node that still works: once its node ended, only the broker's own
 * routes take it; once the node is gone (pruned), nothing does. The node's row is changed from a
 * second connection while its broker (an idle stand-in) still holds a live token, the moment a
 * stopping broker's token lives through.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { besideDaemon } from './beside-daemon.ts';
import { eventually, ok, scripted } from './broker-fixtures.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { readFrames } from './sse.ts';

const IDLE_BROKER = fileURLToPath(new URL('./fixtures/idle-broker.ts', import.meta.url));

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 4, entry: IDLE_BROKER } });
});
afterAll(() => t.stop());

/** A node whose idle broker holds its token, and that token. */
async function nodeWithToken(): Promise<{ id: string; token: string }> {
  const node = await ok<{ id: string }>(
    await t.call('/v1/nodes', json({ task: 'hold', model: scripted('idle', [{ text: 'x' }]) })),
  );
  const file = join(t.home, 'worktrees', node.id, 'launch.json');
  await eventually(() => existsSync(file) && readFileSync(file, 'utf8') !== '', 15_000);
  const { token } = JSON.parse(readFileSync(file, 'utf8')) as { token: string };
  return { id: node.id, token };
}

function sql(statement: string, ...params: string[]): void {
  const db = besideDaemon(t.home);
  try {
    db.exec('PRAGMA foreign_keys = OFF');
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

const child = (token: string) =>
  t.call('/v1/nodes', {
    ...json({ task: 'a child', model: scripted('idle', [{ text: 'x' }]) }),
    token,
  });

describe('a node token', () => {
  it("of an owner's node (no scope list) is not the person: no argv or url receiver, no profile network", async () => {
    const { token } = await nodeWithToken();
    const argv = await t.call('/v1/custom-objects', {
      ...json({
        name: 'hooks',
        events: { done: {} },
        receiver: { kind: 'argv', argv: ['/bin/true'] },
      }),
      token,
    });
    expect(argv.status).toBe(403);
    expect(await envelope(argv)).toMatchObject({ code: 'forbidden', field: 'receiver.kind' });
    const url = await t.call('/v1/custom-objects', {
      ...json({
        name: 'hooks',
        events: { done: {} },
        receiver: { kind: 'url', url: 'http://127.0.0.1:9/' },
      }),
      token,
    });
    expect(url.status).toBe(403);
    expect(await envelope(url)).toMatchObject({ code: 'forbidden', field: 'receiver.kind' });
    const listed = await t.call('/v1/custom-objects');
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
    const network = await t.call('/v1/profiles/node-made', {
      ...json({ network: 'host' }, 'PUT'),
      token,
    });
    expect(network.status).toBe(403);
    expect(await envelope(network)).toMatchObject({ code: 'forbidden', field: 'network' });
    expect((await t.call('/v1/profiles/node-made')).status).toBe(404);
    // The person's own token may do both.
    const own = await t.call('/v1/profiles/node-made', json({ network: 'host' }, 'PUT'));
    expect(own.status).toBe(200);
  });

  it('works while its node works', async () => {
    const { token } = await nodeWithToken();
    expect((await t.call('/v1/grant', { token })).status).toBe(200);
  });

  it('acts on nothing but broker routes once its node ended', async () => {
    const { id, token } = await nodeWithToken();
    sql("UPDATE nodes SET state = 'cancelled' WHERE id = ?", id);
    for (const res of [await t.call('/v1/grant', { token }), await child(token)]) {
      expect(res.status).toBe(403);
      expect(await envelope(res)).toMatchObject({
        code: 'forbidden',
        message: `node ${id} is cancelled: its token acts on nothing but its broker's own routes`,
      });
    }
    // Its broker's own routes still take it (a stopping broker's last records).
    const directive = await t.call(`/v1/nodes/${id}/broker/directive`, { token });
    expect(directive.status).toBe(200);
    // But no new work: neither a job started nor a plugin token minted for the ended node.
    const job = await t.call(`/v1/nodes/${id}/broker/jobs`, {
      ...json({ state: 'running', kind: 'bash', title: 'late' }),
      token,
    });
    expect(job.status).toBe(409);
    const minted = await t.call(`/v1/nodes/${id}/broker/plugin-token`, {
      ...json({ plugin: 'nope', group: 'g' }),
      token,
    });
    expect(minted.status).toBe(409);
  });

  it('is refused everywhere but broker routes once its node is gone', async () => {
    const { id, token } = await nodeWithToken();
    sql('DELETE FROM nodes WHERE id = ?', id);
    const res = await t.call('/v1/grant', { token });
    expect(res.status).toBe(401);
    expect(await envelope(res)).toMatchObject({
      code: 'unauthorized',
      message: 'the node of this token no longer exists',
    });
    expect((await child(token)).status).toBe(401);
  });
});

describe('an open stream', () => {
  it('ends once the token that opened it is revoked, before any later event', async () => {
    const app = await t.appToken(['svc:llm', 'svc:act']);
    const node = await ok<{ id: string }>(
      await t.call('/v1/nodes', {
        ...json({ task: 'watched', model: scripted('idle', [{ text: 'x' }]) }),
        token: app.token,
      }),
    );
    const stream = await t.call(`/v1/nodes/${node.id}/stream`, { token: app.token });
    expect(stream.status).toBe(200);
    const revoked = await t.call(`/v1/tokens/${app.token_id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    const renamed = await t.call(`/v1/nodes/${node.id}`, json({ title: 'AFTER REVOKE' }, 'PATCH'));
    expect(renamed.status).toBe(200);
    const { frames, ended } = await readFrames(stream, () => false, 3_000);
    expect(ended).toBe(true);
    expect(JSON.stringify(frames)).not.toContain('AFTER REVOKE');
  });
});
