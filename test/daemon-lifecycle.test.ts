/**
 * `svc daemon start|status|stop|logs` against real processes, two daemons on one home, and a
 * `kill -9` of the daemon that must lose neither tokens nor events.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Svc } from '@svc/client';
import { afterAll, describe, expect, it } from 'vitest';
import {
  alive,
  cleanupHome,
  lockPid,
  oneErrorLine,
  SVC_BIN,
  svc,
  svcJson,
  tempHome,
  until,
} from './support/cli.ts';

interface Status {
  status: string;
  pid: number;
  socket_path: string;
  tcp: { base_url: string } | null;
  version: string;
  uptime_s: number;
}

interface Event {
  seq: number;
  kind: string;
}

const home = tempHome();
afterAll(() => cleanupHome(home));

describe('svc daemon lifecycle', () => {
  it('status says "not running" with exit 3 before a start', async () => {
    const human = await svc(home, ['daemon', 'status']);
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/not running/);
    const json = await svc(home, ['daemon', 'status', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'not_running', home });
  });

  it('start returns once the socket answers, printing pid and socket', async () => {
    const started = await svc(home, ['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    const pid = lockPid(home);
    expect(pid).toBeGreaterThan(0);
    expect(started.stdout).toContain(String(pid));
    expect(started.stdout).toContain(`${home}/daemon.sock`);
    expect(statSync(`${home}/daemon.sock`).mode & 0o777).toBe(0o600);
  });

  it('status reports pid, socket, TCP, uptime and version', async () => {
    const status = await svcJson<Status>(home, ['daemon', 'status']);
    expect(status).toMatchObject({
      status: 'ready',
      pid: lockPid(home),
      socket_path: `${home}/daemon.sock`,
      tcp: null,
    });
    expect(status.version).toMatch(/\d+\.\d+\.\d+/);
    const human = await svc(home, ['daemon', 'status']);
    expect(human.stdout).toMatch(/^pid\s+\d+$/m);
    expect(human.stdout).toMatch(/^tcp\s+off$/m);
    expect(human.stdout).toMatch(/^uptime\s+\d+s/m);
  });

  it('refuses a second daemon on the same home, naming the pid', async () => {
    const pid = lockPid(home);
    for (const args of [
      ['daemon', 'start'],
      ['daemon', 'start', '--foreground'],
    ]) {
      const second = await svc(home, args);
      expect(second.code).toBe(1);
      expect(oneErrorLine(second)).toContain(`pid ${pid}`);
    }
    expect(lockPid(home)).toBe(pid);
    expect(alive(pid!)).toBe(true);
  });

  it('logs prints the last lines, as JSON lines under --json', async () => {
    const human = await svc(home, ['daemon', 'logs', '-n', '3']);
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ (TRACE|DEBUG|INFO|WARN|ERROR|FATAL)/);
    const json = await svc(home, ['daemon', 'logs', '-n', '2', '--json']);
    for (const line of json.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  // Eight `svc` processes and a daemon start, each seconds long on a loaded 2-core machine: the
  // budget is theirs, every wait inside is on an event.
  it('kill -9, then start again: tokens survive and the event log resumes exactly', {
    timeout: 90_000,
  }, async () => {
    const app = await svcJson<{ token: string; token_id: string }>(home, [
      'sys',
      'connect',
      '--app',
      'survivor',
      '--scopes',
      'svc:llm',
    ]);
    const before = await eventsAfter(0);
    const last = before.at(-1)!.seq;
    expect(before.map((e) => e.seq)).toEqual(range(before[0]!.seq, last));

    const pid = lockPid(home)!;
    process.kill(pid, 'SIGKILL');
    // Down once the killed process is reaped (its zombie still answers kill(pid, 0)): read from
    // /proc, as a CLI process per look would cost seconds each on a loaded machine.
    await until(() => !alive(pid));
    expect((await svc(home, ['daemon', 'status'])).code).toBe(3);

    const restarted = await svc(home, ['daemon', 'start']);
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(lockPid(home)).not.toBe(pid);

    // Every event acknowledged before the kill is still there, unchanged, and the next ones
    // continue right after it: no gap, no duplicate.
    const after = await eventsAfter(0);
    expect(after.slice(0, before.length)).toEqual(before);
    const resumed = await eventsAfter(last);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.map((e) => e.seq)).toEqual(range(last + 1, last + resumed.length));
    expect(resumed).toEqual(after.slice(before.length));

    // The app token minted before the kill still authenticates (over the new TCP listener).
    const owner = await svcJson<{ base_url: string }>(home, ['sys', 'connect']);
    const client = new Svc({ baseUrl: owner.base_url, token: app.token, maxRetries: 0 });
    expect(await client.grant.get()).toMatchObject({
      kind: 'app',
      app_id: 'survivor',
      token_id: app.token_id,
    });
  });

  it('stop drains the daemon and removes its socket and lock', async () => {
    const pid = lockPid(home)!;
    const stopped = await svc(home, ['daemon', 'stop', '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ status: 'stopped', pid });
    expect(alive(pid)).toBe(false);
    expect(existsSync(`${home}/daemon.sock`)).toBe(false);
    expect(existsSync(`${home}/daemon.lock`)).toBe(false);
    expect((await svc(home, ['daemon', 'status'])).code).toBe(3);
    // Stopping what is not running is not an error.
    expect((await svc(home, ['daemon', 'stop'])).code).toBe(0);
  });
});

describe('svc daemon start --foreground', () => {
  const fgHome = tempHome();
  afterAll(() => cleanupHome(fgHome));

  it('serves until SIGINT, with --tcp, then exits 0 and leaves no lock', async () => {
    const child = spawn(
      process.execPath,
      [
        SVC_BIN,
        '--home',
        fgHome,
        '--json',
        'daemon',
        'start',
        '--foreground',
        '--tcp',
        '127.0.0.1:0',
      ],
      { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    // Ready once it printed its status: on that output, or its exit, whichever comes first.
    const printed = new Promise<void>((done, fail) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.trim().endsWith('}')) done();
      });
      void exited.then((code) =>
        fail(new Error(`the daemon exited (${code}) before it was ready`)),
      );
    });
    try {
      await printed;
      const status = JSON.parse(stdout) as Status;
      expect(status).toMatchObject({ status: 'ready', pid: child.pid });
      expect(status.tcp?.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${status.tcp?.base_url}/v1/health`);
      expect(health.status).toBe(200);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(existsSync(`${fgHome}/daemon.lock`)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('svc daemon start --log-level', () => {
  const logHome = tempHome();
  afterAll(async () => {
    await svc(logHome, ['daemon', 'stop']);
    cleanupHome(logHome);
  });

  it('debug adds the routine reads that info leaves out', async () => {
    const started = await svc(logHome, ['daemon', 'start', '--log-level', 'debug']);
    expect(started.code, started.stderr).toBe(0);
    const read = await svc(logHome, ['request', 'GET', '/v1/status']);
    expect(read.code, read.stderr).toBe(0);
    // Lines reach the file within 100 ms of being logged: watched in the file itself, then read
    // back through `svc daemon logs`.
    const logged = (text: string) =>
      text
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .some((line) => line.msg === 'request' && line.path === '/v1/status' && line.level === 20);
    await until(() => logged(readFileSync(join(logHome, 'logs', 'daemon.log'), 'utf8')));
    const logs = await svc(logHome, ['daemon', 'logs', '-n', '200', '--json']);
    expect(logged(logs.stdout)).toBe(true);
  });
});

async function eventsAfter(after: number): Promise<Event[]> {
  const run = await svc(home, ['events', '--after', String(after), '--json']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Event);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
