import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BashResult } from '../src/bash/run.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

const bash = (body: Record<string, unknown>) => t.call('/v1/bash', json({ cwd: t.home, ...body }));
type Result = BashResult;

/** Running, not a zombie (an orphan waits for a reaper that a container may not have). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('POST /v1/bash', () => {
  it('returns a non-zero exit as a value, with stdout, stderr, cwd and env', async () => {
    const res = await bash({
      command: 'pwd; echo "$GREETING" >&2; exit 7',
      env: { GREETING: 'hello' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      exit_code: 7,
      signal: null,
      stdout: `${t.home}\n`,
      stderr: 'hello\n',
      truncated: false,
    });
  });

  it('requires an absolute cwd that exists', async () => {
    const relative = await bash({ command: 'true', cwd: 'relative/dir' });
    expect(relative.status).toBe(422);
    expect(await envelope(relative)).toMatchObject({ code: 'validation_failed', field: 'cwd' });
    const missing = await bash({ command: 'true', cwd: '/no/such/dir' });
    expect(missing.status).toBe(400);
    expect(await envelope(missing)).toMatchObject({ code: 'invalid_request', field: 'cwd' });
    const file = await bash({ command: 'true', cwd: '/etc/hostname' });
    expect(file.status).toBe(400);
    // A file on the way (ENOTDIR, not ENOENT) is the same refusal, never a 500.
    const under = await bash({ command: 'true', cwd: '/etc/hostname/sub' });
    expect(under.status).toBe(400);
    expect(await envelope(under)).toMatchObject({ code: 'invalid_request', field: 'cwd' });
  });

  it('a timeout kills the whole process group', async () => {
    const started = Date.now();
    const res = await bash({ command: 'sleep 30 & echo $! > bg.pid; sleep 30', timeout_ms: 300 });
    const result = (await res.json()) as Result;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ exit_code: null, signal: 'SIGKILL' });
    const background = Number(readFileSync(join(t.home, 'bg.pid'), 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(background)).toBe(false);
  });

  it('answers once the shell exits, though a process it left in its own session holds the pipes', async () => {
    // `setsid` escapes the group kill; it holds stdout open for 20 s, the answer waits not.
    const started = Date.now();
    const res = await bash({
      command: "setsid sh -c 'echo $$ > escaped.pid; exec sleep 20' & echo started",
      timeout_ms: 10_000,
    });
    const result = (await res.json()) as Result;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ exit_code: 0, signal: null, stdout: 'started\n' });
    // Not the daemon's to kill (it left the group); the test's to clean up.
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(Number(readFileSync(join(t.home, 'escaped.pid'), 'utf8')), 'SIGKILL');
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });

  it('caps stdout and stderr at 1 MiB each and says so', async () => {
    const res = await bash({
      command: "head -c 1500000 /dev/zero | tr '\\0' a; head -c 10 /dev/zero | tr '\\0' b >&2",
    });
    const result = (await res.json()) as Result;
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(result.stderr).toBe('bbbbbbbbbb');
    expect(result.truncated).toBe(true);
  });

  it('refuses a timeout over 10 minutes', async () => {
    const res = await bash({ command: 'true', timeout_ms: 10 * 60_000 + 1 });
    expect(res.status).toBe(422);
    expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field: 'timeout_ms' });
  });
});
