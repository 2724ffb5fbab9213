import type { DaemonContext } from '../context.ts';
import type { Principal } from '../ports.ts';
import type { Call } from './call.ts';
import { DEFAULT_LIMIT, page } from './page.ts';
import { mount, type Routes } from './route.ts';

/** Every route of protocol's `memoryRoutes` (docs/api-v1.md "Memory"). */
export function registerMemory(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'memory.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.memory.list(who(c), { ...query, limit: limit + 1 });
    return c.json(page(rows, limit, (r) => r.path));
  });
  mount(app, 'memory.get', (c, { query }) => c.json(ctx.memory.get(who(c), query)));
  mount(app, 'memory.write', (c, { body }) => c.json(ctx.memory.write(who(c), body)));
  mount(app, 'memory.delete', (c, { query }) => c.json(ctx.memory.delete(who(c), query)));
}
