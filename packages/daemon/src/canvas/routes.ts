import { SNAPSHOT_LIMIT_DEFAULT } from '@svc/protocol';
import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { DEFAULT_LIMIT, numericCursor, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';

const SEARCH_LIMIT = 20;

/** Every route of protocol's `canvasRoutes` (docs/api-v1.md "Canvas"). */
export function registerCanvas(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'canvas.attention', (c, { query }) =>
    c.json(
      ctx.canvas.attention(who(c), {
        kinds: query.kinds,
        after: query.after,
        limit: query.limit ?? DEFAULT_LIMIT,
      }),
    ),
  );
  mount(app, 'canvas.attentionCounts', (c) => c.json(ctx.canvas.attentionCounts(who(c))));
  mount(app, 'canvas.snapshot', (c, { query }) =>
    c.json(
      ctx.canvas.snapshot(who(c), {
        limit: query.limit ?? SNAPSHOT_LIMIT_DEFAULT,
        rootId: query.root_id,
      }),
    ),
  );
  mount(app, 'canvas.roster', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.canvas.roster(who(c), {
      states: query.state,
      before: query.after,
      limit: limit + 1,
    });
    return c.json(page(rows, limit, (r) => r.node_id));
  });
  mount(app, 'canvas.prune', (c, { body }) =>
    c.json(
      ctx.canvas.prune({
        olderThanS: body.older_than_s,
        dryRun: body.dry_run,
        includeRuns: body.include_runs,
        limit: body.limit,
      }),
    ),
  );

  mount(app, 'canvas.history.search', (c, { query }) =>
    c.json(
      ctx.canvasHistory.search(who(c), {
        q: query.q,
        nodeId: query.node_id,
        offset: numericCursor(query.after),
        limit: query.limit ?? SEARCH_LIMIT,
      }),
    ),
  );
  mount(app, 'canvas.history.grep', async (c, { query }) =>
    c.json(
      await ctx.canvasHistory.grep(who(c), {
        pattern: query.pattern,
        ignoreCase: query.ignore_case === true,
        nodeId: query.node_id,
        limit: query.limit ?? DEFAULT_LIMIT,
        signal: c.signal,
      }),
    ),
  );
  mount(app, 'canvas.history.read', (c, { query }) =>
    c.json(
      ctx.canvasHistory.read(who(c), {
        nodeId: query.node_id,
        fromTurn: query.from_turn ?? 1,
        limit: query.limit ?? DEFAULT_LIMIT,
      }),
    ),
  );
  mount(app, 'canvas.history.stats', (c, { query }) =>
    c.json(
      ctx.canvasHistory.stats(who(c), { since: query.since, groupBy: query.group_by ?? 'day' }),
    ),
  );
}
