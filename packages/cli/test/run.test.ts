import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

const emptyHome = mkdtempSync(join(tmpdir(), 'svc-cli-run-'));
afterAll(() => rmSync(emptyHome, { recursive: true, force: true }));

/** `svc …args` in-process, with no daemon anywhere: everything here fails or succeeds locally. */
const svc = inProcessSvc(() => emptyHome);

describe('usage errors exit 2 with one stderr line', () => {
  it.each([
    [['nonsense'], /unknown command 'nonsense'/],
    // commander's hint comes on a line of its own; it is folded into the one line
    [['stauts'], /unknown command 'stauts' \(Did you mean status\?\)/],
    [['status', '--jsn'], /unknown option '--jsn' \(Did you mean --json\?\)/],
    [['status', '--bogus'], /unknown option '--bogus'/],
    [['request', 'GET'], /missing required argument 'path'/],
    [['sys', 'connect', '--scopes', 'svc:llm'], /--scopes requires --app/],
    [['sys', 'connect', '--expires-in', '1h'], /--expires-in requires --app/],
    [
      ['sys', 'connect', '--app', 'x', '--scopes', 'llm'],
      /'llm' is a retired short name; use 'svc:llm'/,
    ],
    [['sys', 'connect', '--app', 'x', '--scopes', 'act'], /use 'svc:act'/],
    [['sys', 'connect', '--app', 'x', '--scopes', 'svc:act'], /'svc:act' requires 'svc:llm'/],
    [['sys', 'connect', '--app', 'Bad App'], /--app must be/],
    [['sys', 'connect', '--app', 'x', '--expires-in', 'later'], /--expires-in must be a duration/],
    [['sys', 'connect', '--open', '--app', 'x'], /--open .*takes no --app/],
    [['sys', 'tokens', 'revoke', 'tok_short'], /token id must be tok_/],
    [['daemon', 'start', '--tcp', '99999'], /--tcp must be \[HOST:\]PORT/],
    [['daemon', 'start', '--log-level', 'loud'], /--log-level must be one of trace, debug/],
    [['daemon', 'logs', '-n', 'many'], /--lines must be a whole number/],
    [['events', '--after', 'x'], /--after must be an event seq/],
    [['events', '--kinds', 'Not Kinds'], /--kinds must be/],
    [['bash', '--env', 'NOPE', '--', 'true'], /--env must be NAME=value/],
    [['bash', '--timeout', '0', '--', 'true'], /--timeout must be a positive duration/],
    [['bash', '--timeout', '11m', '--', 'true'], /--timeout must be at most 10m \(600s\)/],
    [['request', 'TRACE', '/v1/status'], /method must be one of/],
    [['request', 'GET', '/v1/events?after=3'], /is an event stream; use svc events/],
  ])('svc %j', async (args, message) => {
    const result = await svc(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: /);
    expect(lines[0]).toMatch(message);
  });

  it('a command group without a subcommand shows its help, exit 2', async () => {
    const result = await svc('daemon');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Usage: svc daemon/);
  });
});

describe('without a daemon', () => {
  it.each([[['status']], [['grant']], [['sys', 'connect']], [['request', 'GET', '/v1/status']]])(
    'svc %j says it is not running, exit 3',
    async (args) => {
      const result = await svc(...args);
      expect(result.code).toBe(3);
      expect(result.stderr).toBe(
        `svc: the svc daemon is not running on ${emptyHome}; start it with: svc daemon start\n`,
      );
    },
  );

  it('a socket left behind by a killed daemon, with nothing listening: exit 3 too', async () => {
    const stale = mkdtempSync(join(tmpdir(), 'svc-cli-stale-'));
    try {
      // A process listening on the home's socket, killed as a daemon can be: the file stays.
      const listener = spawn(
        process.execPath,
        [
          '-e',
          "require('node:net').createServer().listen(process.argv[1], () => console.log('up'))",
          join(stale, 'daemon.sock'),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await new Promise((resolve) => listener.stdout.once('data', resolve));
      listener.kill('SIGKILL');
      await new Promise((resolve) => listener.once('exit', resolve));
      expect(existsSync(join(stale, 'daemon.sock'))).toBe(true);
      writeFileSync(join(stale, 'owner.token'), 'svc_owner_x\n', { mode: 0o600 });
      const result = await inProcessSvc(() => stale)('status');
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^svc: cannot reach the svc daemon \(ECONNREFUSED\)/);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    } finally {
      rmSync(stale, { recursive: true, force: true });
    }
  });

  it('daemon status: "not running", exit 3, and JSON under --json wherever the flag is', async () => {
    const human = await svc('daemon', 'status');
    expect(human).toMatchObject({ code: 3, stderr: '' });
    expect(human.stdout).toBe(`svc daemon is not running on ${emptyHome}\n`);
    for (const args of [
      ['--json', 'daemon', 'status'],
      ['daemon', 'status', '--json'],
    ]) {
      const json = await svc(...args);
      expect(json.code).toBe(3);
      expect(JSON.parse(json.stdout)).toEqual({ status: 'not_running', home: emptyHome });
    }
  });

  it('--home wins over SVC_HOME', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-cli-other-'));
    const result = await svc('--home', other, 'daemon', 'status', '--json');
    rmSync(other, { recursive: true, force: true });
    expect(JSON.parse(result.stdout).home).toBe(other);
  });

  it('daemon start hands the daemon --tcp as parsed: white space around it is no refusal', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-cli-tcp-'));
    try {
      const started = await svc(
        '--home',
        home,
        'daemon',
        'start',
        '--tcp',
        ' 127.0.0.1:0 ',
        '--json',
      );
      expect(started.code, started.stderr).toBe(0);
      expect(JSON.parse(started.stdout).tcp).toMatchObject({ host: '127.0.0.1' });
    } finally {
      await svc('--home', home, 'daemon', 'stop');
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('daemon start --tcp alone listens on 127.0.0.1 at a free port (DESIGN: "svc daemon start --tcp")', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-cli-tcp-'));
    try {
      const started = await svc('--home', home, 'daemon', 'start', '--tcp', '--json');
      expect(started.code, started.stderr).toBe(0);
      const tcp = JSON.parse(started.stdout).tcp;
      expect(tcp).toMatchObject({ host: '127.0.0.1' });
      expect(tcp.port).toBeGreaterThan(0);
    } finally {
      await svc('--home', home, 'daemon', 'stop');
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('daemon logs with no log file prints nothing', async () => {
    expect(await svc('daemon', 'logs')).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('verb aliases', () => {
  it("the client's verbs work as the short ones: list, get, retrieve, delete", async () => {
    for (const [alias, usage] of [
      [['node', 'list', '--help'], /Usage: svc node ls\|list/],
      [['cron', 'get', '--help'], /Usage: svc cron show\|get/],
      [['run', 'delete', '--help'], /Usage: svc run rm\|delete/],
      [['sys', 'tokens', 'ls', '--help'], /Usage: svc sys tokens list\|ls/],
      [['node', 'retrieve', '--help'], /Usage: svc node show\|get/],
    ] as const) {
      const result = await svc(...alias);
      expect(`${result.stdout}${result.stderr}`, alias.join(' ')).toMatch(usage);
    }
    // A name a sibling holds is no alias: `memory get` stays memory's own command.
    expect((await svc('memory', 'get', '--help')).stdout).toMatch(/Usage: svc memory get /);
  });
});

describe('help and version', () => {
  it('--help lists every top-level command and the global options', async () => {
    const result = await svc('--help');
    expect(result.code).toBe(0);
    for (const name of [
      'daemon',
      'sys',
      'status',
      'grant',
      'request',
      'bash',
      'events',
      '--home',
      '--json',
    ]) {
      expect(result.stdout).toContain(name);
    }
  });

  it('subcommand help shows the global options too', async () => {
    const result = await svc('sys', 'connect', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--scopes/);
    expect(result.stdout).toMatch(/--json/);
  });

  it('--version prints the package version', async () => {
    const result = await svc('--version');
    expect(result).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});
