import { mount, type Routes } from '../http/route.ts';
import { type ConnectDeps, connect } from './connect.ts';

/** `svc sys connect`: the TCP listener's base URL and a bearer for it. */
export function registerConnectRoutes(app: Routes, deps: ConnectDeps): void {
  mount(app, 'connect.create', async (c, { body }) => c.json(await connect(deps, body)));
}
