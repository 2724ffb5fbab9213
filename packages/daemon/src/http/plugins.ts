import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

export function registerPlugins(app: Routes, ctx: DaemonContext): void {
  // The body's `token` fetches the archive once; no answer, event or log line carries it.
  mount(app, 'plugins.install', async (c, { body }) => c.json(await ctx.plugins.install(body)));
  mount(app, 'plugins.list', (c) => c.page((limit, after) => ctx.plugins.list(after ?? '', limit)));
  mount(app, 'plugins.retrieve', (c, { params }) => c.json(ctx.plugins.retrieve(params.name)));
  mount(app, 'plugins.remove', (c, { params }) => c.json(ctx.plugins.remove(params.name)));
}
