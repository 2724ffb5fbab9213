import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

/** `models.credentials`: owner only (the route table says so); no answer carries a key. */
export function registerModelAuth(app: Routes, ctx: DaemonContext): void {
  mount(app, 'models.credentials.list', (c) => {
    const data = ctx.models.listCredentials();
    return c.json({ data, has_more: false, next_cursor: null });
  });
  mount(app, 'models.credentials.install', (c, { params, body }) =>
    c.json(ctx.models.installCredential(params.provider, body)),
  );
  mount(app, 'models.credentials.remove', (c, { params }) => {
    ctx.models.removeCredential(params.provider);
    return c.json({ ok: true });
  });
}
