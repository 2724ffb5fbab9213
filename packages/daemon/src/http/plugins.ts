import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

const DEFAULT_LIMIT = 50;

export function registerPlugins(app: Routes, ctx: DaemonContext): void {
  // The body's `token` fetches the archive once; no answer, event or log line carries it.
  mount(app, 'plugins.install', async (c, { body }) => c.json(await ctx.plugins.install(body)));
  mount(app, 'plugins.list', (c, { query }) => {
    const { data, hasMore } = ctx.plugins.list(query.after ?? '', query.limit ?? DEFAULT_LIMIT);
    return c.json({
      data,
      has_more: hasMore,
      next_cursor: hasMore ? (data.at(-1)?.name ?? null) : null,
    });
  });
  mount(app, 'plugins.retrieve', (c, { params }) => c.json(ctx.plugins.retrieve(params.name)));
  mount(app, 'plugins.remove', (c, { params }) => c.json(ctx.plugins.remove(params.name)));
}
