import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

// An app's command runs in its sandbox, where the daemon's home is hidden: it works in /tmp.
const run = (command: string, key: string, token?: string) =>
  t.call('/v1/bash', {
    ...json({ command, cwd: token ? '/tmp' : t.home }, 'POST', { 'idempotency-key': key }),
    ...(token && { token }),
  });

describe('Idempotency-Key', () => {
  it('replays the first answer without running again', async () => {
    const first = await run('echo x >> runs.txt; date +%s%N', 'key-replay');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const body = await first.json();
    const again = await run('echo x >> runs.txt; date +%s%N', 'key-replay');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(body);
    expect(readFileSync(join(t.home, 'runs.txt'), 'utf8')).toBe('x\n');
  });

  it('the same key with another body or path → 409 conflict', async () => {
    expect((await run('true', 'key-conflict')).status).toBe(200);
    const other = await run('false', 'key-conflict');
    expect(other.status).toBe(409);
    // Final: a client that retries 409s (the Stainless SDKs do) is told not to.
    expect(other.headers.get('x-should-retry')).toBe('false');
    expect(await envelope(other)).toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
    const otherPath = await t.call(
      '/v1/connect',
      json({}, 'POST', { 'idempotency-key': 'key-conflict' }),
    );
    expect(otherPath.status).toBe(409);
  });

  it('a replayed 409 is as final as the first: x-should-retry: false again', async () => {
    const tokens = (await (await t.call('/v1/tokens?limit=200')).json()) as {
      data: { id: string; kind: string }[];
    };
    const owner = tokens.data.find((token) => token.kind === 'owner')!;
    const revoke = () =>
      t.call(`/v1/tokens/${owner.id}`, {
        method: 'DELETE',
        headers: { 'idempotency-key': 'key-final-409' },
      });
    const first = await revoke();
    expect(first.status).toBe(409); // the owner token is not revoked through the API
    expect(first.headers.get('x-should-retry')).toBe('false');
    const again = await revoke();
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-should-retry')).toBe('false');
  });

  it('the same key with another query → 409; the same query in another order replays', async () => {
    const put = (path: string) =>
      t.call('/v1/memory/document', json({ path, content: 'x' }, 'PUT'));
    for (const path of ['idem/a', 'idem/b']) expect((await put(path)).status).toBe(200);
    const del = (query: string) =>
      t.call(`/v1/memory/document?${query}`, {
        method: 'DELETE',
        headers: { 'idempotency-key': 'key-query' },
      });
    expect((await del('space=user&path=idem%2Fa')).status).toBe(200);
    const other = await del('space=user&path=idem%2Fb');
    expect(other.status).toBe(409);
    expect(await envelope(other)).toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
    expect((await t.call('/v1/memory/document?path=idem%2Fb')).status).toBe(200);
    const reordered = await del('path=idem%2Fa&space=user');
    expect(reordered.status).toBe(200);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys are per token', async () => {
    const { token } = await t.appToken(['svc:llm', 'svc:act']);
    expect((await run('true', 'key-shared')).status).toBe(200);
    const theirs = await run('echo theirs', 'key-shared', token);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(((await theirs.json()) as { stdout: string }).stdout).toBe('theirs\n');
  });

  it('a duplicate that comes while the first runs waits for its answer; it never runs twice', async () => {
    const command = 'echo x >> concurrent.txt; sleep 0.3; echo done';
    const answers = await Promise.all([
      run(command, 'key-race'),
      run(command, 'key-race'),
      run(command, 'key-race'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const replayed = answers.map((r) => r.headers.get('idempotent-replayed'));
    expect(replayed.filter((h) => h === 'true')).toHaveLength(2);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect((bodies[0] as { stdout: string }).stdout).toBe('done\n');
    expect(readFileSync(join(t.home, 'concurrent.txt'), 'utf8')).toBe('x\n');
    const later = await run(command, 'key-race');
    expect(later.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a retry after the first attempt was abandoned gets the first answer', async () => {
    const command = 'echo x >> abandoned.txt; sleep 0.4; echo finished';
    const first = t.call('/v1/bash', {
      ...json({ command, cwd: t.home }, 'POST', { 'idempotency-key': 'key-abandoned' }),
      signal: AbortSignal.timeout(100), // a client timeout: the command goes on without it
    });
    await expect(first).rejects.toThrow();
    const retry = await run(command, 'key-abandoned');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { stdout: string }).stdout).toBe('finished\n');
    expect(readFileSync(join(t.home, 'abandoned.txt'), 'utf8')).toBe('x\n');
  });

  it('stores error answers too, and validates the key', async () => {
    const missing = await t.call(
      '/v1/bash',
      json({ command: 'true', cwd: '/no/such/dir' }, 'POST', { 'idempotency-key': 'key-400' }),
    );
    expect(missing.status).toBe(400);
    const replay = await t.call(
      '/v1/bash',
      json({ command: 'true', cwd: '/no/such/dir' }, 'POST', { 'idempotency-key': 'key-400' }),
    );
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const bad = await t.call(
      '/v1/bash',
      json({ command: 'true', cwd: '/' }, 'POST', { 'idempotency-key': 'x'.repeat(256) }),
    );
    expect(bad.status).toBe(400);
  });

  it('a minted token is replayed within the daemon life but never stored in the database', async () => {
    const body = { app_id: 'idem', scopes: ['svc:llm'] };
    const first = (await (
      await t.call('/v1/connect', json(body, 'POST', { 'idempotency-key': 'key-mint' }))
    ).json()) as { token: string };
    const again = await t.call(
      '/v1/connect',
      json(body, 'POST', { 'idempotency-key': 'key-mint' }),
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { token: string }).token).toBe(first.token);
    const tokens = (await (await t.call('/v1/tokens')).json()) as { data: { app_id: string }[] };
    expect(tokens.data.filter((d) => d.app_id === 'idem')).toHaveLength(1);
    for (const file of ['svc.db', 'svc.db-wal']) {
      expect(readFileSync(join(t.home, file)).includes(first.token)).toBe(false);
    }
  });
});
