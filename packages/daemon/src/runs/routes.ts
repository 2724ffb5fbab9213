import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { madeOnce } from '../http/idempotency.ts';
import { awaitFinal, eventsPage, eventsResponse } from '../http/node-streams.ts';
import { DEFAULT_LIMIT, numericCursor, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';
import { screenPatterns } from '../services/pattern-safety.ts';
import type { Run } from './service.ts';

/** Every route of protocol's `runsRoutes` (docs/nodes.md "runs"). */
export function registerRuns(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  /** Waits until the run is final or `timeoutS` passes; answers `{final, run}`. */
  async function awaitRun(c: Call, id: string, timeoutS: number | undefined) {
    const principal = who(c);
    const { final, value } = await awaitFinal(c, ctx, timeoutS, () => ctx.runs.get(id, principal));
    return { final, run: value };
  }

  // Read routes (trace, events, stream): by read visibility (docs/nodes.md "Visibility").
  const tree = (c: Call, id: string) => {
    const { run, root } = ctx.runs.readableRun(id, who(c));
    return { run: run.id, root: root.id };
  };

  const listRuns = (
    filter: { appId: string | null | undefined; runId?: string | null | undefined },
    q: {
      state?: Run['state'][] | undefined;
      limit?: number | undefined;
      after?: string | undefined;
    },
  ) => {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = ctx.runs.list({ ...filter, states: q.state, before: q.after, limit: limit + 1 });
    return page(rows, limit, (r) => r.id);
  };

  mount(app, 'runs.start', async (c, { body }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    return c.json(ctx.runs.start(body, who(c)));
  });
  mount(app, 'runs.list', (c, { query }) => {
    const { appId, nodeId } = who(c);
    // A node's broker sees its own tree only (docs/nodes.md, visibility): its run, if any, and
    // not every run of its app or, for an owner's node, of the owner.
    const runId = nodeId === null ? undefined : (ctx.store.nodes.get(nodeId)?.run_id ?? null);
    return c.json(listRuns({ appId, runId }, query));
  });
  mount(app, 'runs.listAll', (c, { query }) => c.json(listRuns({ appId: query.app_id }, query)));
  mount(app, 'runs.get', (c, { params }) => c.json(ctx.runs.get(params.id, who(c))));
  mount(app, 'runs.message', (c, { params, body }) =>
    c.json(ctx.runs.message(params.id, body.text, who(c))),
  );
  mount(app, 'runs.reply', (c, { params, body }) =>
    c.json(ctx.runs.reply(params.id, body.text, who(c))),
  );
  mount(app, 'runs.interrupt', async (c, { params, body }) =>
    c.json(await ctx.runs.interrupt(params.id, body.reason, who(c))),
  );
  mount(app, 'runs.cancel', async (c, { params, body }) =>
    c.json(await ctx.runs.cancel(params.id, body.reason, who(c))),
  );
  mount(app, 'runs.delete', (c, { params }) => c.json(ctx.runs.delete(params.id, who(c))));
  mount(app, 'runs.rename', (c, { params, body }) =>
    c.json(ctx.runs.rename(params.id, body.title, who(c))),
  );
  mount(app, 'runs.trace', (c, { params, query }) => {
    const { root } = tree(c, params.id);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.store.turns.listTree(root, {
      nodeId: query.node_id,
      after: numericCursor(query.after),
      limit: limit + 1,
    });
    const { data, has_more, next_cursor } = page(rows, limit, (r) => String(r.cursor));
    return c.json({ data: data.map((r) => r.turn), has_more, next_cursor });
  });
  mount(app, 'runs.events', (c, { params, query }) =>
    c.json(eventsPage(ctx, tree(c, params.id), query)),
  );
  mount(app, 'runs.stream', (c, { params, query }) =>
    eventsResponse(c, ctx, tree(c, params.id), query),
  );
  mount(app, 'runs.wait', async (c, { params, query }) =>
    c.json(await awaitRun(c, params.id, query.timeout_s)),
  );
  mount(app, 'runs.parse', async (c, { body: { timeout_s, ...body } }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    const id = madeOnce(c, ctx.store, () => ctx.runs.start(body, who(c)).id);
    const answer = await awaitRun(c, id, timeout_s);
    const parsed = answer.run.state === 'done' ? (answer.run.outcome?.result ?? null) : null;
    return c.json({ ...answer, parsed });
  });
}
