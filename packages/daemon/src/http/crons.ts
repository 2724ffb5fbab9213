import type { DaemonContext } from '../context.ts';
import type { Principal } from '../ports.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';
import type { Call } from './call.ts';
import { DEFAULT_LIMIT, page } from './page.ts';
import { mount, type Routes } from './route.ts';

/** Every route of protocol's `cronsRoutes` (docs/api-v1.md "Crons"). */
export function registerCrons(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'crons.create', async (c, { body }) => {
    await screenPatterns(body.task.output_schema, 'output_schema');
    return c.json(ctx.crons.create(body, who(c)));
  });
  mount(app, 'crons.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.crons.list(who(c), {
      state: query.state,
      before: query.after,
      limit: limit + 1,
    });
    return c.json(page(rows, limit, (r) => r.id));
  });
  mount(app, 'crons.retrieve', (c, { params }) => c.json(ctx.crons.get(params.id, who(c))));
  mount(app, 'crons.pause', (c, { params }) => c.json(ctx.crons.pause(params.id, who(c))));
  mount(app, 'crons.resume', (c, { params }) => c.json(ctx.crons.resume(params.id, who(c))));
  mount(app, 'crons.run', (c, { params }) => c.json(ctx.crons.run(params.id, who(c))));
  mount(app, 'crons.delete', (c, { params }) => c.json(ctx.crons.delete(params.id, who(c))));
  mount(app, 'crons.poke', (c, { params }) => c.json(ctx.crons.poke(params.id, who(c))));
}
