import { mount, type Routes } from '../http/route.ts';
import type { DirectoryService } from './service.ts';

export interface DirectoryRouteDeps {
  directory: DirectoryService;
}

/**
 * The directory's keys. `GET /.well-known/jwks.json`, public: where a directory-mode plugin given
 * `auth: { issuer: <the TCP listener's base URL> }` fetches them (RFC 8414's well-known location,
 * as the plugin kit reads it). Listing and rotating them is the owner's.
 */
export function registerDirectoryRoutes(app: Routes, { directory }: DirectoryRouteDeps): void {
  mount(app, 'directory.jwks.get', async (c) => c.json(await directory.jwks()));
  mount(app, 'directory.keys.list', async (c) => c.json(await directory.keys()));
  mount(app, 'directory.keys.rotate', async (c, { body }) =>
    c.json(await directory.rotate(body.revoke_previous === true)),
  );
}
