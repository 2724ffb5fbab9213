import { ApiError } from '../errors.ts';
import { mount, type Routes } from '../http/route.ts';
import { viewerCookieName } from '../http/viewer-auth.ts';
import type { TcpInfo } from '../ports.ts';
import type { ViewerService } from './service.ts';

export interface ViewerRouteDeps {
  viewer: Pick<ViewerService, 'createLink' | 'logout'>;
  /** Where the TCP listener is, once on: the viewer is served there. */
  tcp(): TcpInfo | null;
}

/** Clears the session cookie: the same attributes, no value, already expired. */
const clearCookie = (port: number) =>
  `${viewerCookieName(port)}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;

/** The `viewer` routes (docs/api-v1.md "Viewer"): login links and logout. */
export function registerViewerRoutes(app: Routes, deps: ViewerRouteDeps): void {
  const { viewer } = deps;
  mount(app, 'viewer.links.create', (c) => {
    const tcp = deps.tcp();
    if (tcp === null) {
      throw new ApiError(
        'invalid_state',
        'the TCP listener is off: the viewer is served there; turn it on with `svc sys connect` (POST /v1/connect) first',
      );
    }
    const { code, expiresAt } = viewer.createLink();
    return c.json({ url: `${tcp.base_url}/viewer/login?code=${code}`, expires_at: expiresAt });
  });

  // Called with the cookie, it ends that session; with a bearer there is no session to end, and
  // the answer says so (the cookie, if any, is cleared all the same).
  mount(app, 'viewer.logout', (c) => {
    const revoked = c.viewerSession !== null && viewer.logout(c.viewerSession);
    const tcp = deps.tcp();
    const clear = tcp === null ? {} : { 'Set-Cookie': clearCookie(tcp.port) };
    return c.json({ revoked }, 200, { ...clear, 'Cache-Control': 'no-store' });
  });
}
