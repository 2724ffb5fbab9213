import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { Call } from '../http/call.ts';
import { madeOnce } from '../http/idempotency.ts';
import { awaitFinal, eventsPage, eventsResponse } from '../http/node-streams.ts';
import { DEFAULT_LIMIT, numericCursor, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';
import { screenPatterns } from '../services/pattern-safety.ts';
import { type Node, toNode } from './store/nodes.ts';
import { abandonWorktree, closeWorktree } from './workspace/worktrees.ts';

const MAIL_CLAIM_DEFAULT = 50;

/**
 * Every route of protocol's `nodesRoutes` (docs/nodes.md "nodes"). Routes that only read look
 * the node up by read visibility (`readableRow`, `get`, `list`, `outcome`); every route that
 * changes something by `visibleRow`, so another app's conversation stays 404 there.
 */
export function registerNodes(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  /** Waits until the node is final or `timeoutS` passes; answers `{final, node}`. */
  async function awaitOutcome(c: Call, id: string, timeoutS: number | undefined) {
    const principal = who(c);
    const { final, value } = await awaitFinal(c, ctx, timeoutS, () => ctx.nodes.get(id, principal));
    return { final, node: value };
  }

  const parsed = (node: Node) => (node.state === 'done' ? (node.outcome?.result ?? null) : null);

  mount(app, 'nodes.create', async (c, { body }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    return c.json(ctx.nodes.create(body, who(c)));
  });
  mount(app, 'nodes.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.nodes.list(who(c), {
      states: query.state,
      parentId: query.parent_id,
      rootId: query.root_id,
      runId: query.run_id,
      profile: query.profile,
      before: query.after,
      limit: limit + 1,
    });
    return c.json(page(rows, limit, (n) => n.id));
  });
  mount(app, 'nodes.retrieve', (c, { params }) => c.json(ctx.nodes.get(params.id, who(c))));
  mount(app, 'nodes.update', (c, { params, body }) =>
    c.json(ctx.nodes.update(params.id, body, who(c))),
  );
  mount(app, 'nodes.cancel', async (c, { params, body }) =>
    c.json(await ctx.nodes.cancel(params.id, body.reason, who(c))),
  );
  mount(app, 'nodes.interrupt', async (c, { params, body }) =>
    c.json(await ctx.nodes.interrupt(params.id, body.reason, who(c))),
  );
  mount(app, 'nodes.message', (c, { params, body }) =>
    c.json(ctx.nodes.message(params.id, body.text, who(c))),
  );
  mount(app, 'nodes.outcome', (c, { params }) => c.json(ctx.nodes.outcome(params.id, who(c))));
  mount(app, 'nodes.waitForOutcome', async (c, { params, query }) =>
    c.json(await awaitOutcome(c, params.id, query.timeout_s)),
  );
  mount(app, 'nodes.createAndWait', async (c, { body: { timeout_s, ...body } }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    const id = madeOnce(c, ctx.store, () => ctx.nodes.create(body, who(c)).id);
    return c.json(await awaitOutcome(c, id, timeout_s));
  });
  mount(app, 'nodes.parse', async (c, { body: { timeout_s, ...body } }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    const id = madeOnce(c, ctx.store, () => ctx.nodes.create(body, who(c)).id);
    const answer = await awaitOutcome(c, id, timeout_s);
    return c.json({ ...answer, parsed: parsed(answer.node) });
  });
  mount(app, 'nodes.stream', (c, { params, query }) => {
    const row = ctx.nodes.readableRow(params.id, who(c));
    const subjects = query.subtree === true ? { subtree: row.id } : { node: row.id };
    return eventsResponse(c, ctx, subjects, query);
  });
  mount(app, 'nodes.events', (c, { params, query }) => {
    const row = ctx.nodes.readableRow(params.id, who(c));
    const subjects = query.subtree === true ? { subtree: row.id } : { node: row.id };
    return c.json(eventsPage(ctx, subjects, query));
  });
  mount(app, 'nodes.fork', (c, { params, body }) =>
    c.json(ctx.nodes.fork(params.id, body, who(c))),
  );
  mount(app, 'nodes.revive', (c, { params, body }) =>
    c.json(ctx.nodes.revive(params.id, body.message, who(c))),
  );
  mount(app, 'nodes.reviveAll', (c, { body }) => {
    if (body.root_id !== undefined) ctx.nodes.visibleRow(body.root_id, who(c), 'root_id');
    const ids = ctx.nodes.reviveAll(body.states ?? ['failed'], body.root_id);
    return c.json({ count: ids.length, node_ids: ids });
  });
  mount(app, 'nodes.promote', (c, { params }) => c.json(ctx.nodes.promote(params.id, who(c))));
  mount(app, 'nodes.demote', (c, { params, body }) =>
    c.json(ctx.nodes.demote(params.id, body.parent_id, who(c))),
  );
  mount(app, 'nodes.recycle', (c, { params, body }) =>
    c.json(ctx.nodes.recycle(params.id, body, who(c))),
  );
  mount(app, 'nodes.yield', (c, { params, body }) =>
    c.json(ctx.nodes.yield(params.id, body.reason)),
  );
  mount(app, 'nodes.wait', (c, { params, body }) => c.json(ctx.nodes.wait(params.id, body)));
  mount(app, 'nodes.relaunchRoot', async (c, { params }) =>
    c.json(await ctx.nodes.relaunchRoot(params.id, who(c))),
  );
  mount(app, 'nodes.reports.list', (c, { params, query }) => {
    ctx.nodes.readableRow(params.id, who(c));
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.store.reports.list(params.id, numericCursor(query.after), limit + 1);
    return c.json(page(rows, limit, (r) => String(r.seq)));
  });
  mount(app, 'nodes.jobs.list', (c, { params, query }) => {
    ctx.nodes.readableRow(params.id, who(c));
    const limit = query.limit ?? DEFAULT_LIMIT;
    // Job ids sort by creation; `~` sorts after every id character, so no cursor = the newest.
    const rows = ctx.store.jobs.list(params.id, query.after ?? '~', limit + 1);
    return c.json(page(rows, limit, (j) => j.id));
  });
  mount(app, 'nodes.jobs.cancel', (c, { params }) =>
    c.json(ctx.nodes.cancelJob(params.id, params.job_id, who(c))),
  );
  mount(app, 'nodes.worktree.close', (c, { params }) =>
    c.json(closeWorktree(ctx.home, ctx.nodes.visibleRow(params.id, who(c)))),
  );
  mount(app, 'nodes.worktree.abandon', (c, { params }) =>
    c.json(abandonWorktree(ctx.home, ctx.nodes.visibleRow(params.id, who(c)))),
  );
  mount(app, 'nodes.result.submit', async (c, { params, body }) => {
    ctx.nodes.visibleRow(params.id, who(c));
    const done = ctx.nodes.submit(params.id, body);
    await ctx.nodes.stopBroker(params.id);
    return c.json(done);
  });
  mount(app, 'nodes.mail.claim', (c, { params, body }) => {
    const data = ctx.store.mail.claim(
      params.id,
      body.limit ?? MAIL_CLAIM_DEFAULT,
      new Date().toISOString(),
    );
    return c.json({ data });
  });
  mount(app, 'nodes.mail.acknowledge', (c, { params, body }) => {
    const acknowledged = ctx.store.mail.acknowledge(params.id, body.seqs, new Date().toISOString());
    return c.json({ acknowledged });
  });
  mount(app, 'nodes.attach', async (c, { params }) => {
    const node = toNode(ctx.nodes.visibleRow(params.id, who(c)));
    const socket = await ctx.nodes.viewerSocket(node.id);
    if (socket === null) {
      throw new ApiError(
        'invalid_state',
        `node is '${node.state}' and has no live broker to attach to`,
      );
    }
    return c.json({ node_id: node.id, socket_path: socket });
  });
}
