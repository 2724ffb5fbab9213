import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { mount, type Routes } from '../http/route.ts';
import { viewerCookieName } from '../http/viewer-auth.ts';

/** Clears the session cookie: the same attributes, no value, already expired. */
const clearCookie = (port: number) =>
  `${viewerCookieName(port)}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;

export function registerViewer(app: Routes, ctx: DaemonContext): void {
  mount(app, 'viewer.links.create', (c) => {
    const tcp = ctx.tcp();
    if (tcp === null) {
      throw new ApiError(
        'invalid_state',
        'the TCP listener is off: the viewer is served there; turn it on with `svc sys connect` (POST /v1/connect) first',
      );
    }
    const { code, expiresAt } = ctx.viewer.createLink();
    return c.json({ url: `${tcp.base_url}/viewer/login?code=${code}`, expires_at: expiresAt });
  });

  // Called with the cookie, it ends that session; with a bearer there is no session to end, and
  // the answer says so (the cookie, if any, is cleared all the same).
  mount(app, 'viewer.logout', (c) => {
    const revoked = c.viewerSession !== null && ctx.viewer.logout(c.viewerSession);
    const tcp = ctx.tcp();
    const clear = tcp === null ? {} : { 'Set-Cookie': clearCookie(tcp.port) };
    return c.json({ revoked }, 200, { ...clear, 'Cache-Control': 'no-store' });
  });
}
