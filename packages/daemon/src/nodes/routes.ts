/**
 * Every route of protocol's `nodesRoutes` (docs/nodes.md "nodes"). Their visibility is the route
 * table's: `tree-read` on the routes that only read, `tree` on those that change something, so
 * another app's conversation stays 404 there; `c.caller()` below carries it to the operation.
 */
import { ApiError } from '../errors.ts';
import type { Call } from '../http/call.ts';
import { madeOnce } from '../http/idempotency.ts';
import { eventsPage, eventsResponse, type StreamDeps } from '../http/node-streams.ts';
import { numericCursor } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';
import type { Store } from '../store/index.ts';
import type { GitRunner } from '../worktrees/git.ts';
import { abandonWorktree, closeWorktree } from '../worktrees/worktrees.ts';
import { awaitFinal, type PollDeps } from './await-final.ts';
import type { NodeService } from './service.ts';
import type { Node } from './store/nodes.ts';
import type { Caller } from './visibility.ts';

export interface NodeRouteDeps extends StreamDeps, PollDeps {
  nodes: NodeService;
  /** The idempotency keys of the create-and-wait forms, and the event pages' reads. */
  store: Pick<Store, 'db' | 'idempotency' | 'nodes' | 'nodeEvents'>;
  /** The daemon's home: where a node's worktree lives. */
  home: string;
  /** How git runs on a git node's repository (`../worktrees/git.ts`). */
  git: GitRunner;
}

/** The caller of a request, with the sight of its route's rule (`RouteDef.visibility`). */
export function callerIn(c: Call): Caller {
  return { principal: c.principal!, sight: c.sight() };
}

export function registerNodeRoutes(app: Routes, deps: NodeRouteDeps): void {
  const { nodes } = deps;

  /** Waits until the node is final or `timeoutS` passes; answers `{final, node}`. */
  async function awaitOutcome(c: Call, id: string, timeoutS: number | undefined) {
    const caller = callerIn(c);
    const { final, value } = await awaitFinal(c, deps, timeoutS, () => nodes.get(id, caller));
    return { final, node: value };
  }

  /** A new node made once per Idempotency-Key, for the create-and-wait forms. */
  function createOnce(c: Call, body: Parameters<typeof nodes.create>[0]): string {
    return madeOnce(c, deps.store, () => nodes.create(body, callerIn(c)).id);
  }

  const parsed = (node: Node) => (node.state === 'done' ? (node.outcome?.result ?? null) : null);

  mount(app, 'nodes.create', async (c, { body }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    return c.json(nodes.create(body, callerIn(c)));
  });
  mount(app, 'nodes.list', (c, { query }) =>
    c.page((limit, after) =>
      nodes.list(callerIn(c), {
        states: query.state,
        parentId: query.parent_id,
        rootId: query.root_id,
        runId: query.run_id,
        profile: query.profile,
        before: after,
        limit,
      }),
    ),
  );
  mount(app, 'nodes.retrieve', (c, { params }) => c.json(nodes.get(params.id, callerIn(c))));
  mount(app, 'nodes.update', (c, { params, body }) =>
    c.json(nodes.update(params.id, body, callerIn(c))),
  );
  mount(app, 'nodes.cancel', async (c, { params, body }) =>
    c.json(await nodes.cancel(params.id, body.reason, callerIn(c))),
  );
  mount(app, 'nodes.interrupt', async (c, { params, body }) =>
    c.json(await nodes.interrupt(params.id, body.reason, callerIn(c))),
  );
  mount(app, 'nodes.message', (c, { params, body }) =>
    c.json(nodes.message(params.id, body.text, callerIn(c))),
  );
  mount(app, 'nodes.outcome', (c, { params }) => c.json(nodes.outcome(params.id, callerIn(c))));
  mount(app, 'nodes.waitForOutcome', async (c, { params, query }) =>
    c.json(await awaitOutcome(c, params.id, query.timeout_s)),
  );
  mount(app, 'nodes.createAndWait', async (c, { body: { timeout_s, ...body } }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    return c.json(await awaitOutcome(c, createOnce(c, body), timeout_s));
  });
  mount(app, 'nodes.parse', async (c, { body: { timeout_s, ...body } }) => {
    await screenPatterns(body.output_schema, 'output_schema');
    const answer = await awaitOutcome(c, createOnce(c, body), timeout_s);
    return c.json({ ...answer, parsed: parsed(answer.node) });
  });
  mount(app, 'nodes.stream', (c, { params, query }) => {
    const node = nodes.get(params.id, callerIn(c));
    const subjects = query.subtree === true ? { subtree: node.id } : { node: node.id };
    return eventsResponse(c, deps, subjects, query);
  });
  mount(app, 'nodes.events', (c, { params, query }) => {
    const node = nodes.get(params.id, callerIn(c));
    const subjects = query.subtree === true ? { subtree: node.id } : { node: node.id };
    return c.json(eventsPage(deps, subjects, query));
  });
  mount(app, 'nodes.fork', (c, { params, body }) =>
    c.json(nodes.fork(params.id, body, callerIn(c))),
  );
  mount(app, 'nodes.revive', (c, { params, body }) =>
    c.json(nodes.revive(params.id, body.message, callerIn(c))),
  );
  mount(app, 'nodes.reviveAll', (c, { body }) => {
    if (body.root_id !== undefined) nodes.get(body.root_id, callerIn(c), 'root_id');
    const ids = nodes.reviveAll(body.states ?? ['failed'], body.root_id);
    return c.json({ count: ids.length, node_ids: ids });
  });
  mount(app, 'nodes.promote', (c, { params }) => c.json(nodes.promote(params.id, callerIn(c))));
  mount(app, 'nodes.demote', (c, { params, body }) =>
    c.json(nodes.demote(params.id, body.parent_id, callerIn(c))),
  );
  mount(app, 'nodes.recycle', (c, { params, body }) =>
    c.json(nodes.recycle(params.id, body, callerIn(c))),
  );
  mount(app, 'nodes.yield', (c, { params, body }) => c.json(nodes.yield(params.id, body.reason)));
  mount(app, 'nodes.wait', (c, { params, body }) => c.json(nodes.wait(params.id, body)));
  mount(app, 'nodes.relaunchRoot', async (c, { params }) =>
    c.json(await nodes.relaunchRoot(params.id, callerIn(c))),
  );
  mount(app, 'nodes.reports.list', (c, { params }) =>
    c.page((limit, after) =>
      nodes.listReports(params.id, callerIn(c), limit, numericCursor(after)),
    ),
  );
  mount(app, 'nodes.jobs.list', (c, { params }) =>
    c.page((limit, after) => nodes.listJobs(params.id, callerIn(c), limit, after)),
  );
  mount(app, 'nodes.jobs.cancel', (c, { params }) =>
    c.json(nodes.cancelJob(params.id, params.job_id, callerIn(c))),
  );
  mount(app, 'nodes.worktree.close', async (c, { params }) =>
    c.json(await closeWorktree(deps, nodes.get(params.id, callerIn(c)))),
  );
  mount(app, 'nodes.worktree.abandon', async (c, { params }) =>
    c.json(await abandonWorktree(deps, nodes.get(params.id, callerIn(c)))),
  );
  mount(app, 'nodes.result.submit', async (c, { params, body }) =>
    c.json(await nodes.submitFromOutside(params.id, body, callerIn(c))),
  );
  mount(app, 'nodes.mail.claim', (c, { params, body }) =>
    c.json({ data: nodes.claimMail(params.id, body.limit) }),
  );
  mount(app, 'nodes.mail.acknowledge', (c, { params, body }) =>
    c.json({ acknowledged: nodes.acknowledgeMail(params.id, body.seqs) }),
  );
  mount(app, 'nodes.attach', async (c, { params }) => {
    const node = nodes.get(params.id, callerIn(c));
    const socket = await nodes.viewerSocket(node.id);
    if (socket === null) {
      throw new ApiError(
        'invalid_state',
        `node is '${node.state}' and has no live broker to attach to`,
      );
    }
    return c.json({ node_id: node.id, socket_path: socket });
  });
}
