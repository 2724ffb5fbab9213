// What every example must show over real HTTP, given its public endpoint URL (mount included,
// as passed to `svc pkg plugin install --endpoint`) and its shared token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from './archive.ts';
import { type Spawned, spawnServer } from './spawn-server.ts';

/**
 * The example in `dir` as its README runs it (`npm start` there is `node <file>` on the repo's
 * Node 24): a real process, configured by its environment, found by its "listening on" line.
 */
export function describeOwnProcess(dir: string, file: string, token: string): void {
  describe(`${file} as its own process`, () => {
    let server: Spawned;
    beforeAll(async () => {
      server = await spawnServer(process.execPath, [file], {
        cwd: dir,
        env: { ACME_TOKEN: token, PORT: '0' },
      });
    });
    afterAll(() => server?.stop());

    itServesAcme(() => `${server.url}/plugins`, token);
  });
}

export function itServesAcme(endpoint: () => string, token: string): void {
  const auth = { authorization: `Bearer ${token}` };

  // At the endpoint itself (where the installer fetches it) and under it.
  it.each(['', '/acme'])(
    'serves the archive at <endpoint>%s, every rest.path carrying the mount',
    async (below) => {
      const response = await fetch(`${endpoint()}${below}`, { headers: auth });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-tar');
      expect(response.headers.get('cache-control')).toMatch(/no-transform/);
      const manifest = await readManifest(response);
      const mount = new URL(endpoint()).pathname.replace(/\/$/, '');
      for (const command of manifest.commands) {
        expect(command.rest).toEqual({
          method: 'POST',
          path: `${mount}/acme/tickets/${command.name}`,
        });
      }
      expect(manifest.commands.map((command) => command.name)).toContain('create');
    },
  );

  it('runs a command with the token', async () => {
    const response = await fetch(`${endpoint()}/acme/tickets/create`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'svc-request-id': 'req-acme' },
      body: JSON.stringify({ title: 'Printer on fire' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('svc-request-id')).toBe('req-acme');
    expect(await response.json()).toHaveProperty('title', 'Printer on fire');
  });

  it('refuses the archive and commands without the token', async () => {
    const archive = await fetch(`${endpoint()}/acme`);
    expect(archive.status).toBe(401);
    expect(archive.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const command = await fetch(`${endpoint()}/acme/tickets/list`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong' },
    });
    expect(command.status).toBe(401);
    expect((await command.json()).error.code).toBe('unauthorized');
  });

  // The installer keeps only the endpoint's origin (SPEC, "Installing a plugin"): a real daemon
  // installs the example, and the command answers at that origin plus the path it stored.
  it('installs through the daemon, and answers at origin + the stored path', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-example-'));
    const daemon = await startDaemon({ home, logLevel: 'warn' });
    try {
      const client = createLocalClient({ home });
      const plugin = (await client.request('POST', '/v1/plugins', {
        endpoint: endpoint(),
        name: 'acme',
        auth_env: 'ACME_TOKEN',
        token,
      })) as { origin: string; commands: { name: string; path: string }[] };
      expect(plugin.origin).toBe(new URL(endpoint()).origin);
      const create = plugin.commands.find((command) => command.name === 'create');
      const response = await fetch(`${plugin.origin}${create?.path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Installed' }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toHaveProperty('title', 'Installed');
    } finally {
      await daemon.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
}
