/**
 * The broker concurrency limit from outside: `--brokers N` on the daemon process (and
 * `spawnDaemon({ brokers })`, which `svc daemon start --brokers` uses), `SVC_BROKERS`, and what
 * `GET /v1/status` reports of it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnDaemon } from '../src/index.ts';
import { DAEMON_MAIN, daemonProcesses, json, socketFetch } from './helpers.ts';

const { newHome, pids } = daemonProcesses();

/** Runs the daemon process to its exit; answers its exit code and stderr. */
function runMain(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', DAEMON_MAIN, ...args],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    },
  );
  pids.push(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stderr })),
  );
}

describe('the broker concurrency limit', () => {
  it('--brokers sets it and /v1/status reports the slots', async () => {
    const home = newHome();
    const { pid, socketPath } = await spawnDaemon({ home, brokers: 3 });
    pids.push(pid);
    const call = socketFetch(socketPath, readFileSync(`${home}/owner.token`, 'utf8').trim());
    const status = (await (await call('/v1/status')).json()) as Record<string, unknown>;
    expect(status.brokers).toEqual({ concurrency: 3, active: 0, queued: 0 });
    expect((await call('/v1/shutdown', json({}))).status).toBe(200);
  });

  it('refuses a bad --brokers or SVC_BROKERS with one line and exit 1', async () => {
    const flag = await runMain(['--home', newHome(), '--brokers', '0']);
    expect(flag).toEqual({
      code: 1,
      stderr: 'svc daemon: --brokers must be a positive integer; received "0"\n',
    });
    const env = await runMain(['--home', newHome()], { ...process.env, SVC_BROKERS: 'many' });
    expect(env).toEqual({
      code: 1,
      stderr: 'svc daemon: SVC_BROKERS must be a positive integer; received "many"\n',
    });
  });

  it('refuses a bad SVC_HOST_NICENESS with one line and exit 1', async () => {
    const env = await runMain(['--home', newHome()], { ...process.env, SVC_HOST_NICENESS: '20' });
    expect(env).toEqual({
      code: 1,
      stderr: 'svc daemon: SVC_HOST_NICENESS must be an integer from 0 to 19; received "20"\n',
    });
  });
});
