/**
 * A scoped token's sandbox outlives its command (`sandbox/token-sessions.ts`): what a command
 * left running in the background lives on in it. It must not outlive what it shows being the
 * token's to see: revoking the token ends it, and so does ending a share it was built with; a
 * token whose plan did not change keeps its own. Real bubblewrap, real processes, found by the
 * host's `/proc`.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './broker-fixtures.ts';
import { json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';
import { escaped, processesWith } from './processes.ts';

const scratch = scratchDirs('svcd-token-box-');
let t: TestDaemon;
let root: string;
beforeAll(async () => {
  t = await startTestDaemon();
  root = realpathSync(scratch());
  mkdirSync(join(root, 'shared'));
  writeFileSync(join(root, 'shared', 'notes.txt'), 'shared with the app for a while');
});
afterAll(() => t.stop());

const ACT = ['svc:llm', 'svc:act'];
let marks = 0;

/** Leaves `sleep <mark>` running in a session of its own in the token's sandbox. */
async function leaveRunning(token: string, cwd: string): Promise<string> {
  const mark = `${process.pid}${++marks}07`;
  const res = await t.call('/v1/bash', {
    ...json({
      command: escaped(mark),
      cwd,
    }),
    token,
  });
  const body = (await res.json()) as { stdout: string; sandbox: string | null };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toMatchObject({ stdout: expect.stringMatching(/^\d+\n$/), sandbox: 'bubblewrap' });
  await eventually(() => processesWith(`sleep\0${mark}\0`).length === 1, 10_000, 'the sleep');
  return `sleep\0${mark}\0`;
}

const gone = (mark: string, what: string) =>
  eventually(() => processesWith(mark).length === 0, 10_000, what);

describe("a token's sandbox", () => {
  it('ends with the token: what it left running is gone once it is revoked', async () => {
    const { token, token_id } = await t.appToken([...ACT, `svc:files:rw:user:${root}`], {
      app_id: 'revoked-app',
    });
    const mark = await leaveRunning(token, root);
    const res = await t.call(`/v1/tokens/${token_id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    await gone(mark, "the revoked token's background sleep");
  });

  it('ends with a share it was built with; a token whose files did not change keeps its own', async () => {
    const { token } = await t.appToken(ACT, { app_id: 'borrower' });
    const { token: bystander } = await t.appToken([...ACT, `svc:files:read:user:${root}`], {
      app_id: 'bystander',
    });
    const made = await t.call(
      '/v1/shares',
      json({ app_id: 'borrower', path: join(root, 'shared'), mode: 'read' }),
    );
    expect(made.status, await made.clone().text()).toBe(200);
    const { id } = (await made.json()) as { id: string };
    const borrowed = await leaveRunning(token, join(root, 'shared'));
    const kept = await leaveRunning(bystander, root);
    expect((await t.call(`/v1/shares/${id}`, { method: 'DELETE' })).status).toBe(200);
    await gone(borrowed, "the borrower's background sleep");
    expect(processesWith(kept)).toHaveLength(1);
  });
});
