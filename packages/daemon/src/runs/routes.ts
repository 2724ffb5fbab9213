/**
 * Every route of protocol's `runsRoutes` (docs/nodes.md "runs"). Their visibility is the route
 * table's, the nodes' own rules: `tree-read` on reads (trace, events, stream, get, wait), `tree`
 * on what changes a run.
 */
import type { Call } from '../http/call.ts';
import { madeOnce } from '../http/idempotency.ts';
import { eventsPage, eventsResponse, type StreamDeps } from '../http/node-streams.ts';
import { DEFAULT_LIMIT, numericCursor, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import { awaitFinal, type PollDeps } from '../nodes/await-final.ts';
import { callerIn } from '../nodes/routes.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';
import type { Store } from '../store/index.ts';
import type { RunService } from './service.ts';
import type { Run } from './view.ts';

export interface RunRouteDeps extends StreamDeps, PollDeps {
  runs: RunService;
  /** Idempotency keys, the event pages' reads, a broker's own run and the trace's turns. */
  store: Pick<Store, 'db' | 'idempotency' | 'nodes' | 'nodeEvents' | 'turns'>;
}

export function registerRunRoutes(app: Routes, deps: RunRouteDeps): void {
  const { runs } = deps;

  /** Waits until the run is final or `timeoutS` passes; answers `{final, run}`. */
  async function awaitRun(c: Call, id: string, timeoutS: number | undefined) {
    const caller = callerIn(c);
    const { final, value } = await awaitFinal(c, deps, timeoutS, () => runs.get(id, caller));
    return { final, run: value };
  }

  /** The run's tree, as the event pages and streams filter by it. */
  const tree = (c: Call, id: string) => {
    const { run, root } = runs.seen(id, callerIn(c));
    return { run: run.id, root: root.id };
  };

  const listed = (
    c: Call,
    filter: { appId: string | null | undefined; runId?: string | null | undefined },
    states: readonly Run['state'][] | undefined,
  ) => c.page((limit, after) => runs.list({ ...filter, states, before: after, limit }));

  mount(app, 'runs.start', async (c, { body }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    return c.json(runs.start(body, c.principal!));
  });
  mount(app, 'runs.list', (c, { query }) => {
    const { appId, nodeId } = c.principal!;
    // A node's broker sees its own tree only (docs/nodes.md, visibility): its run, if any, and
    // not every run of its app or, for an owner's node, of the owner.
    const runId = nodeId === null ? undefined : (deps.store.nodes.get(nodeId)?.run_id ?? null);
    return listed(c, { appId, runId }, query.state);
  });
  mount(app, 'runs.listAll', (c, { query }) => listed(c, { appId: query.app_id }, query.state));
  mount(app, 'runs.get', (c, { params }) => c.json(runs.get(params.id, callerIn(c))));
  mount(app, 'runs.message', (c, { params, body }) =>
    c.json(runs.message(params.id, body.text, callerIn(c))),
  );
  mount(app, 'runs.reply', (c, { params, body }) =>
    c.json(runs.reply(params.id, body.text, callerIn(c))),
  );
  mount(app, 'runs.interrupt', async (c, { params, body }) =>
    c.json(await runs.interrupt(params.id, body.reason, callerIn(c))),
  );
  mount(app, 'runs.cancel', async (c, { params, body }) =>
    c.json(await runs.cancel(params.id, body.reason, callerIn(c))),
  );
  mount(app, 'runs.delete', async (c, { params }) =>
    c.json(await runs.delete(params.id, callerIn(c))),
  );
  mount(app, 'runs.rename', (c, { params, body }) =>
    c.json(runs.rename(params.id, body.title, callerIn(c))),
  );
  // A turn's page cursor is its row order in the tree, not a field of the turn: paged here.
  mount(app, 'runs.trace', (c, { params, query }) => {
    const { root } = tree(c, params.id);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = deps.store.turns.listTree(root, {
      nodeId: query.node_id,
      after: numericCursor(query.after),
      limit: limit + 1,
    });
    const { data, has_more, next_cursor } = page(rows, limit, (r) => String(r.cursor));
    return c.json({ data: data.map((r) => r.turn), has_more, next_cursor });
  });
  mount(app, 'runs.events', (c, { params, query }) =>
    c.json(eventsPage(deps, tree(c, params.id), query)),
  );
  mount(app, 'runs.stream', (c, { params, query }) =>
    eventsResponse(c, deps, tree(c, params.id), query),
  );
  mount(app, 'runs.wait', async (c, { params, query }) =>
    c.json(await awaitRun(c, params.id, query.timeout_s)),
  );
  mount(app, 'runs.parse', async (c, { body: { timeout_s, ...body } }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    const id = madeOnce(c, deps.store, () => runs.start(body, c.principal!).id);
    const answer = await awaitRun(c, id, timeout_s);
    const parsed = answer.run.state === 'done' ? (answer.run.outcome?.result ?? null) : null;
    return c.json({ ...answer, parsed });
  });
}
