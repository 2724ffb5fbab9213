import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { DEFAULT_LIMIT, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';

/** The `focuses` routes (docs/api-v1.md "Focuses"). */
export function registerFocuses(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'focuses.set', (c, { params, body }) =>
    c.json(ctx.focuses.set(params.node_id, body.pane, who(c))),
  );
  mount(app, 'focuses.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.focuses.list(who(c), {
      pane: query.pane,
      before: query.after,
      limit: limit + 1,
    });
    return c.json(page(rows, limit, (f) => f.node_id));
  });
  mount(app, 'focuses.retrieve', (c, { params }) =>
    c.json(ctx.focuses.get(params.node_id, who(c))),
  );
  mount(app, 'focuses.delete', (c, { params }) =>
    c.json(ctx.focuses.delete(params.node_id, who(c))),
  );
}
