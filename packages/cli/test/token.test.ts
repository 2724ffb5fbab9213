/**
 * `svc` acting as a token: `SVC_TOKEN` (over the socket) and `SVC_BASE_URL` + `SVC_TOKEN` (over
 * TCP) reach the daemon as that token, and the help hides `svc human` without `svc:act` and
 * `svc cron` without `svc:schedule` (SPEC "Scope vocabulary").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

let home = '';
let daemon: DaemonHandle | undefined;
let baseUrl = '';
const tokens = { bare: '', full: '' };
let env: Record<string, string> = {};
const svc = inProcessSvc(
  () => home,
  () => env,
);
const as = (extra: Record<string, string>) => {
  env = extra;
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-token-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  const owner = createLocalClient({ home });
  const mint = (scopes: string[]) =>
    owner.request<{ token: string; base_url: string }>('post', '/v1/connect', {
      app_id: 'notes',
      scopes,
    });
  const bare = await mint([]);
  tokens.bare = bare.token;
  baseUrl = bare.base_url;
  tokens.full = (await mint(['svc:llm', 'svc:act', 'svc:schedule'])).token;
});

afterAll(async () => {
  await daemon?.close();
  rmSync(home, { recursive: true, force: true });
});

/** The top-level command names a help text lists, under its group headings after the options. */
function commandsIn(help: string): string[] {
  const commands = help.split(/^Agents:$/m)[1] ?? '';
  return [...commands.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1] as string);
}

/** The top-level command names of `svc --help`. */
async function listed(...args: string[]): Promise<string[]> {
  const res = await svc(...args);
  expect(res.code, res.stderr).toBe(0);
  return commandsIn(res.stdout);
}

describe('svc as a token', () => {
  it('SVC_TOKEN acts as that token over the socket', async () => {
    as({ SVC_TOKEN: tokens.bare });
    const res = await svc('grant', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ kind: 'app', app_id: 'notes', scopes: [] });
  });

  it('SVC_BASE_URL with SVC_TOKEN reaches the TCP listener', async () => {
    as({ SVC_BASE_URL: baseUrl, SVC_TOKEN: tokens.full, SVC_HOME: '/nonexistent' });
    const res = await svc('grant', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ kind: 'app', scopes: expect.any(Array) });
  });

  it('SVC_BASE_URL without SVC_TOKEN is one clear error', async () => {
    as({ SVC_BASE_URL: baseUrl });
    const res = await svc('grant');
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(
      'svc: SVC_BASE_URL is set but SVC_TOKEN is not; set both, or neither\n',
    );
    // A remote daemon that does not answer is not one to start here.
    as({ SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TOKEN: tokens.bare });
    const away = await svc('grant');
    expect(away.code).not.toBe(0);
    expect(away.stderr).toMatch(/is SVC_BASE_URL \(http:\/\/127\.0\.0\.1:9\) right/);
    expect(away.stderr).not.toMatch(/svc daemon start/);
    as({ SVC_BASE_URL: 'notaurl', SVC_TOKEN: tokens.bare });
    const bad = await svc('grant');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^svc: SVC_BASE_URL: /);
  });

  it('the help hides human without svc:act and cron without svc:schedule', async () => {
    as({ SVC_TOKEN: tokens.bare });
    for (const help of [['--help'], ['help']]) {
      const names = await listed(...help);
      expect(names).toContain('node');
      expect(names).not.toContain('cron');
      expect(names).not.toContain('human');
    }
  });

  it('global options before help or --help still hide them, and svc help exits 0', async () => {
    as({ SVC_TOKEN: tokens.bare });
    for (const help of [
      ['--home', home, 'help'],
      [`--home=${home}`, 'help'],
      ['--json', 'help'],
      ['--json', '--home', home, '--help'],
      ['help', '--json'],
    ]) {
      const names = await listed(...help);
      expect(names, help.join(' ')).toContain('node');
      expect(names, help.join(' ')).not.toContain('cron');
      expect(names, help.join(' ')).not.toContain('human');
    }
  });

  it('a bare svc prints the help on stderr (exit 2), hiding them too', async () => {
    as({ SVC_TOKEN: tokens.bare });
    for (const bare of [[], ['--json'], [`--home=${home}`], ['--home', home]]) {
      const res = await svc(...bare);
      expect(res.code, bare.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      const names = commandsIn(res.stderr);
      expect(names, bare.join(' ')).toContain('node');
      expect(names, bare.join(' ')).not.toContain('cron');
      expect(names, bare.join(' ')).not.toContain('human');
    }
  });

  it('svc help [command] exits 0 with global options first, as the owner too', async () => {
    as({});
    expect(await listed('--home', home, 'help')).toEqual(expect.arrayContaining(['cron', 'human']));
    const memory = await svc('--json', 'help', 'memory');
    expect(memory.code, memory.stderr).toBe(0);
    expect(memory.stdout).toMatch(/^Usage: svc memory/);
    // Help for a command that does not exist is a usage error, not a success.
    expect((await svc('help', 'nope')).code).toBe(2);
  });

  it('the help shows them with the scopes, and to the owner', async () => {
    as({ SVC_TOKEN: tokens.full });
    expect(await listed('--help')).toEqual(expect.arrayContaining(['cron', 'human']));
    as({});
    expect(await listed('--help')).toEqual(expect.arrayContaining(['cron', 'human']));
  });

  it('a hidden command still runs: the daemon decides what the token may do', async () => {
    as({ SVC_TOKEN: tokens.bare });
    const ls = await svc('cron', 'ls', '--json');
    expect(ls.code, ls.stderr).toBe(0);
    const pause = await svc('cron', 'pause', 'cron_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(pause.code).not.toBe(0);
    expect(pause.stderr).toMatch(/svc:schedule/);
  });
});
