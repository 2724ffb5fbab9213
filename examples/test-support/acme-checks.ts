// What every example must show over real HTTP, given its public endpoint URL (mount included,
// as passed to `svc pkg plugin install --endpoint`) and its shared token.
import { expect, it } from 'vitest';
import { readManifest } from './archive.ts';

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
}
