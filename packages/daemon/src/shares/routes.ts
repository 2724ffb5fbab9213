import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { DEFAULT_LIMIT, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';

/** The `shares` routes (docs/api-v1.md "Shares"). */
export function registerShares(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'shares.create', (c, { body }) => c.json(ctx.shares.create(body, who(c))));
  mount(app, 'shares.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.shares.list(who(c), {
      appId: query.app_id,
      before: query.after,
      limit: limit + 1,
    });
    return c.json(page(rows, limit, (s) => s.id));
  });
  mount(app, 'shares.delete', (c, { params }) => c.json(ctx.shares.delete(params.id, who(c))));
}
