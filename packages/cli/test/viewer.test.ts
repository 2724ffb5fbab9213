/** `svc sys connect --open` against a real daemon: the link it prints logs a browser in once. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Io, palette, renderStatus, run } from '../src/index.ts';

let home = '';
let daemon: DaemonHandle | undefined;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-v-'));
  // A build of its own, so what `svc status` says does not hang on packages/viewer/dist.
  const dist = join(home, 'viewer-dist');
  mkdirSync(dist);
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>svc</title>');
  daemon = await startDaemon({ home, logLevel: 'warn', viewer: { dist } });
});
afterAll(async () => {
  await daemon?.close();
  rmSync(home, { recursive: true, force: true });
});

/** `svc …args` in-process with `env` on top of the home (no browser is ever opened here). */
async function svc(env: Record<string, string>, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdoutIsTTY: false,
    env: { SVC_HOME: home, ...env },
  };
  const code = await run(['node', 'svc', ...args], io);
  return { code, stdout, stderr };
}

const login = (url: string) => fetch(url, { redirect: 'manual' });

describe('svc sys connect --open', () => {
  it('svc status says the viewer waits for the TCP listener while it is off', async () => {
    const res = await svc({}, 'status');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^viewer +off \(the TCP listener is off: `svc sys connect --open`/m);
  });

  it('turns TCP on and prints a link that logs in once (SVC_NO_BROWSER=1)', async () => {
    expect(daemon!.tcp).toBeNull();
    const res = await svc({ SVC_NO_BROWSER: '1' }, 'sys', 'connect', '--open');
    expect(res.code, res.stderr).toBe(0);
    const match = res.stdout.match(/^open this link within 60 s: (\S+)\n$/);
    expect(match, res.stdout).not.toBeNull();
    const url = match![1]!;
    expect(url.startsWith(`${daemon!.tcp!.base_url}/viewer/login?code=`)).toBe(true);
    const first = await login(url);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/^\/viewer\/#key=[A-Za-z0-9_-]{43}$/);
    expect(first.headers.get('set-cookie')).toMatch(
      new RegExp(`^svc_viewer_${daemon!.tcp!.port}=`),
    );
    expect((await login(url)).status).toBe(401);
  });

  it('--no-browser prints the link too; --json prints {url, expires_at}', async () => {
    const plain = await svc({ PATH: '' }, 'sys', 'connect', '--open', '--no-browser');
    expect(plain.stdout).toMatch(/^open this link within 60 s: http:\/\/127\.0\.0\.1:\d+\//);
    const res = await svc({ SVC_NO_BROWSER: '1' }, 'sys', 'connect', '--open', '--json');
    expect(res.code, res.stderr).toBe(0);
    const link = JSON.parse(res.stdout);
    expect(Object.keys(link).sort()).toEqual(['expires_at', 'url']);
    expect((await login(link.url)).status).toBe(303);
  });

  it('--open with --app is a usage error, exit 2', async () => {
    const res = await svc({ SVC_NO_BROWSER: '1' }, 'sys', 'connect', '--open', '--app', 'x');
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
  });
});

describe('svc status', () => {
  it('says where the viewer is once TCP is on', async () => {
    const res = await svc({}, 'status');
    expect(res.stdout).toContain(`viewer   ${daemon!.tcp!.base_url}/viewer/ (log in with`);
  });

  it('says how to build the viewer when the daemon has no build', () => {
    const line = renderStatus({ viewer: { url: null, built: false } }, palette(false));
    expect(line).toMatch(/^viewer +not built: run `npm run build -w @svc\/viewer`$/m);
  });
});
