/**
 * `npm start` (scripts/start.ts): a foreground daemon with the TCP listener on, the lines a
 * person needs (never the owner token itself), one proven request, and a clean stop on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, cleanupHome, svcJson, tempHome, until } from './support/cli.ts';

const ROOT = resolve(import.meta.dirname, '..');
const home = tempHome();
const npmHome = tempHome();
let child: ChildProcess | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  await cleanupHome(home);
  await cleanupHome(npmHome);
});

describe('npm start', () => {
  it('runs the daemon in the foreground, shows how to try it, and stops cleanly', async () => {
    const proc = spawn(process.execPath, [join(ROOT, 'scripts/start.ts')], {
      cwd: ROOT,
      env: { ...process.env, SVC_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk) => (stdout += chunk));
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));

    await until(() => stdout.includes('Ctrl-C stops it.') || proc.exitCode !== null, 15_000);
    expect(stderr).toBe('');

    const status = await svcJson<{ pid: number; tcp: { base_url: string } }>(home, [
      'daemon',
      'status',
    ]);
    expect(status.pid).toBe(proc.pid);
    const baseUrl = status.tcp.base_url;
    // The proof: the status table of a real authenticated request.
    expect(stdout).toMatch(/^\s+status\s+ready$/m);
    expect(stdout).toMatch(new RegExp(`^\\s+tcp\\s+${baseUrl}$`, 'm'));
    // What to try: svc sys connect and two curl lines against the real listener.
    expect(stdout).toContain('npx svc sys connect --json');
    expect(stdout).toContain(`curl -s ${baseUrl}/v1/health`);
    expect(stdout).toContain(`${baseUrl}/v1/status`);
    // Never the owner token itself.
    const ownerToken = readFileSync(join(home, 'owner.token'), 'utf8').trim();
    expect(stdout).not.toContain(ownerToken);
    expect(stdout).not.toContain(ownerToken.slice(0, 20));

    const health = await fetch(`${baseUrl}/v1/health`);
    expect(health.status).toBe(200);

    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('svc daemon stopped');
    expect(existsSync(join(home, 'daemon.lock'))).toBe(false);
  });

  // What a supervisor or a shell's `kill %1` does: signal npm, not the script under it. npm passes
  // the signal on to its child, which must be the script itself (`exec`), not a shell that dies
  // and leaves the daemon running with the home's lock.
  it('stops the daemon when npm itself gets SIGTERM', async () => {
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, SVC_HOME: npmHome, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = npm;
    let stdout = '';
    npm.stdout.on('data', (chunk) => (stdout += chunk));
    await until(() => stdout.includes('Ctrl-C stops it.') || npm.exitCode !== null, 30_000);
    const { pid } = await svcJson<{ pid: number }>(npmHome, ['daemon', 'status']);
    expect(pid).not.toBe(npm.pid);
    npm.kill('SIGTERM');
    await until(() => !alive(pid), 15_000);
    expect(existsSync(join(npmHome, 'daemon.lock'))).toBe(false);
  }, 60_000);
});
