/**
 * The token sandboxes' own rules (src/sandbox/token-sessions.ts), on a clock the test moves and
 * real sandboxes: idle time counts from a command's end, never while one runs (a command may run
 * for 10 minutes, its sandbox's idle limit is one); a token's new plan ends its older sandbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makePlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';
import { tokenSessions } from '../../src/sandbox/token-sessions.ts';
import { eventually } from '../broker-fixtures.ts';
import { escaped, processesWith } from '../processes.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-token-box-'));
const elsewhere = mkdtempSync(join(tmpdir(), 'svc-token-files-'));
const host = probeSandbox(home);
const settings = loadSandboxSettings(home);
const planOf = (scopes: string[]) =>
  makePlan({ settings, host, svcHome: home, scopes: scopes as never });
const ENV = { PATH: '/usr/bin:/bin', HOME: '/tmp' };
const never = new AbortController().signal;

let clock = 0;
const sessions = tokenSessions(() => clock);
afterAll(() => {
  sessions.close();
  for (const dir of [home, elsewhere]) rmSync(dir, { recursive: true, force: true });
});

describe('token sandboxes', () => {
  it('are never idle while a command runs; idle from its end, they end', async () => {
    const plan = planOf(['svc:act']);
    const s = (await sessions.of('tok_long', plan, () => plan))!;
    expect(s).not.toBeNull();
    const long = s.run({ command: 'sleep 2.5; echo done', cwd: '/', env: ENV }, never);
    // Far past the idle limit while it runs: the checks of the next seconds keep it.
    clock += 10 * 60_000;
    expect(await long).toMatchObject({ code: 0, stdout: Buffer.from('done\n') });
    const mark = `${process.pid}31`;
    await s.run({ command: escaped(mark), cwd: '/', env: ENV }, never);
    expect(processesWith(`sleep\0${mark}\0`)).toHaveLength(1);
    clock += 60_000;
    await eventually(() => processesWith(`sleep\0${mark}\0`).length === 0, 10_000, 'idle end');
  });

  it("a token's new plan ends its sandbox under the old one", async () => {
    const narrow = planOf(['svc:act']);
    // As it was: only the new plan's arrival ends the old sandbox here, not the check.
    const old = (await sessions.of('tok_plan', narrow, () => narrow))!;
    const mark = `${process.pid}32`;
    await old.run({ command: escaped(mark), cwd: '/', env: ENV }, never);
    expect(processesWith(`sleep\0${mark}\0`)).toHaveLength(1);
    const wider = planOf(['svc:act', `svc:files:read:user:${elsewhere}`]);
    expect(await sessions.of('tok_plan', wider, () => wider)).not.toBe(old);
    await eventually(() => processesWith(`sleep\0${mark}\0`).length === 0, 10_000, 'old plan end');
  });
});
