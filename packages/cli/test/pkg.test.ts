/** `svc pkg plugin …` against a real daemon reading a real plugin over HTTP. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { createFetchHandler, definePlugin } from '@svc/plugin-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc, spawnSvc } from './support.ts';

const TOKEN = 'acme-shared-token-5d1e';
const plugin = definePlugin({
  name: 'acme',
  description: 'Acme support tickets',
  groups: {
    tickets: {
      description: 'Support tickets',
      commands: { create: { description: 'Open a ticket', handler: () => ({ id: 'T-1' }) } },
    },
  },
});
const handler = createFetchHandler(plugin, { token: TOKEN });

// The kit's handler behind node:http on 127.0.0.1; the daemon only GETs the archive.
const server = createServer(async (req, res) => {
  const headers = Object.entries(req.headers).flatMap(([name, value]) =>
    typeof value === 'string' ? [[name, value] as [string, string]] : [],
  );
  const response = await handler(new Request(`http://${req.headers.host}${req.url}`, { headers }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

let home: string;
let daemon: DaemonHandle;
let endpoint: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-p-'));
  daemon = await startDaemon({ home, logLevel: 'info' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plugins`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

const svc = inProcessSvc(() => home);

/** `svc …args` as a child process, with extra environment variables. */
const svcWithEnv = (args: string[], env: Record<string, string>) => spawnSvc(home, args, { env });

describe('svc pkg plugin', () => {
  it('install reads the token from the variable --auth-env names, and never prints it', async () => {
    const args = ['pkg', 'plugin', 'install', '--endpoint', endpoint, '--name', 'acme'];
    const refused = await svcWithEnv([...args, '--auth-env', 'ACME_TOKEN'], {});
    expect(refused.code).not.toBe(0);
    expect(refused.code).toBe(1);
    // One line: the refusal, and why it most likely came.
    expect(refused.stderr).toMatch(/^svc: .*answered 401.*; ACME_TOKEN is not set here/);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);

    const result = await svcWithEnv([...args, '--auth-env', 'ACME_TOKEN'], {
      ACME_TOKEN: TOKEN,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('POST /plugins/acme/tickets/create');
    // the name a node's model calls the command by
    expect(result.stdout).toMatch(/POST \/plugins\/acme\/tickets\/create\s+acme_tickets_create/);
    expect(result.stdout).toContain(`transport`);
    expect(result.stdout).not.toContain(TOKEN);
    expect(result.stderr).not.toContain(TOKEN);
    expect(result.stderr).toContain('svc profile env set <profile> --name ACME_TOKEN');
  });

  it('--json, ls, show and rm', async () => {
    const shown = await svc('pkg', 'plugin', 'show', 'acme', '--json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      name: 'acme',
      origin: new URL(endpoint).origin,
      auth: 'token',
      auth_env: 'ACME_TOKEN',
      commands: [{ path: '/plugins/acme/tickets/create' }],
    });
    const listed = await svc('pkg', 'plugin', 'ls');
    expect(listed.stdout).toMatch(/acme\s+-\s+token\s+1\s+http:\/\/127\.0\.0\.1/);
    expect((await svc('pkg', 'plugin', 'rm', 'acme')).stdout).toContain('removed plugin acme');
    const gone = await svc('pkg', 'plugin', 'show', 'acme');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain("no plugin 'acme'");
  });

  it('names the variable of a token that cannot be one, and never echoes it', async () => {
    const args = ['pkg', 'plugin', 'install', '--endpoint', endpoint, '--name', 'acme'];
    const result = await svcWithEnv([...args, '--auth-env', 'ACME_TOKEN'], {
      ACME_TOKEN: `${TOKEN}\n`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ACME_TOKEN must hold the token alone');
    expect(result.stderr).not.toContain(TOKEN);
  });

  it('says when a token was given but refused', async () => {
    const args = ['pkg', 'plugin', 'install', '--endpoint', endpoint, '--name', 'acme'];
    const result = await svcWithEnv([...args, '--auth-env', 'ACME_TOKEN'], {
      ACME_TOKEN: 'not-the-token',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('answered 401 (the token given in ACME_TOKEN was refused)');
    expect(result.stderr).not.toContain('not-the-token');
  });

  it('tells how a directory-mode plugin must be configured, and names its tools', async () => {
    const directory = createFetchHandler(plugin, {
      auth: { issuer: 'https://directory.test', audience: 'https://tools.test/plugins' },
    });
    const other = createServer(async (req, res) => {
      const response = await directory(new Request(`http://${req.headers.host}${req.url}`));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const at = `http://127.0.0.1:${(other.address() as AddressInfo).port}/plugins`;
      const installed = await svc('pkg', 'plugin', 'install', '--endpoint', at, '--name', 'acme');
      expect(installed.code).toBe(0);
      expect(installed.stderr).toContain(`audience: '${at}'`);
      const shown = await svc('pkg', 'plugin', 'show', 'acme');
      expect(shown.stdout).toMatch(/auth\s+directory$/m);
      expect(shown.stdout).toMatch(/acme_tickets_create/);
    } finally {
      await svc('pkg', 'plugin', 'rm', 'acme');
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('does not repeat the credentials or query of a refused endpoint', async () => {
    for (const bad of ['http://user:pa55word@127.0.0.1/p', 'http://127.0.0.1/p?key=pa55word']) {
      const result = await svc('pkg', 'plugin', 'install', '--endpoint', bad, '--name', 'acme');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("received 'http://127.0.0.1/p (credentials and query");
      expect(result.stderr).not.toContain('pa55word');
    }
  });

  it('says an endpoint nothing answers on is unreachable, in one line, at once', async () => {
    const result = await svc(
      'pkg',
      'plugin',
      'install',
      '--endpoint',
      'http://127.0.0.1:1/p',
      '--name',
      'acme',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^svc: could not reach http:\/\/127\.0\.0\.1:1\/p\/versions: .*is the plugin's server running at that address\? \(invalid_request, request [\w-]+\)\n$/,
    );
  });

  it.each([
    [['--endpoint', 'ftp://x/p', '--name', 'acme'], /--endpoint must be an http\(s\) URL/],
    [['--endpoint', 'http://u:p@x/p', '--name', 'acme'], /with no credentials, query or fragment/],
    [['--endpoint', 'http://127.0.0.1/p', '--name', 'Acme'], /--name must be a lowercase letter/],
    [
      ['--endpoint', 'http://127.0.0.1/p', '--name', 'acme', '--auth-env', '1X'],
      /--auth-env must be a letter or _/,
    ],
  ])('refuses bad flags before calling the daemon: %j', async (flags, message) => {
    const result = await svc('pkg', 'plugin', 'install', ...flags);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});
