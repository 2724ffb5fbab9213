import type { DirectoryService } from '../services/directory.ts';
import { mount, type Routes } from './route.ts';

/**
 * `GET /.well-known/jwks.json`, public: the daemon's directory keys, where a directory-mode
 * plugin given `auth: { issuer: <the TCP listener's base URL> }` fetches them (RFC 8414's
 * well-known location, as the plugin kit reads it).
 */
export function registerDirectory(app: Routes, directory: DirectoryService): void {
  mount(app, 'directory.jwks.get', async (c) => c.json(await directory.jwks()));
}
