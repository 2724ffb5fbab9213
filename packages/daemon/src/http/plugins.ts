import type { DaemonContext } from '../context.ts';
import { DEFAULT_LIMIT, page } from './node-streams.ts';
import { mount, type Routes } from './route.ts';

export function registerPlugins(app: Routes, ctx: DaemonContext): void {
  // The body's `token` fetches the archive once; no answer, event or log line carries it.
  mount(app, 'plugins.install', async (c, { body }) => c.json(await ctx.plugins.install(body)));
  mount(app, 'plugins.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    return c.json(page(ctx.plugins.list(query.after ?? '', limit + 1), limit, (p) => p.name));
  });
  mount(app, 'plugins.retrieve', (c, { params }) => c.json(ctx.plugins.retrieve(params.name)));
  mount(app, 'plugins.remove', (c, { params }) => c.json(ctx.plugins.remove(params.name)));
}
