import { SNAPSHOT_LIMIT_DEFAULT } from '@svc/protocol';
import { DEFAULT_LIMIT, numericCursor } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { CanvasHistoryService } from './history.ts';
import type { CanvasService } from './service.ts';

const SEARCH_LIMIT = 20;

export interface CanvasRouteDeps {
  canvas: CanvasService;
  canvasHistory: CanvasHistoryService;
}

/**
 * Every route of protocol's `canvasRoutes` (docs/api-v1.md "Canvas"). The attention list's
 * cursor is an item's sort key and history search's an offset: they page themselves.
 */
export function registerCanvasRoutes(app: Routes, deps: CanvasRouteDeps): void {
  const { canvas, canvasHistory } = deps;

  mount(app, 'canvas.attention', (c, { query }) =>
    c.json(
      canvas.attention(c.principal!, {
        kinds: query.kinds,
        after: query.after,
        limit: query.limit ?? DEFAULT_LIMIT,
      }),
    ),
  );
  mount(app, 'canvas.attentionCounts', (c) => c.json(canvas.attentionCounts(c.principal!)));
  mount(app, 'canvas.snapshot', (c, { query }) =>
    c.json(
      canvas.snapshot(c.principal!, {
        limit: query.limit ?? SNAPSHOT_LIMIT_DEFAULT,
        rootId: query.root_id,
      }),
    ),
  );
  mount(app, 'canvas.roster', (c, { query }) =>
    c.page((limit, after) =>
      canvas.roster(c.principal!, { states: query.state, before: after, limit }),
    ),
  );
  mount(app, 'canvas.prune', async (c, { body }) =>
    c.json(
      await canvas.prune({
        olderThanS: body.older_than_s,
        dryRun: body.dry_run,
        includeRuns: body.include_runs,
        limit: body.limit,
      }),
    ),
  );

  mount(app, 'canvas.history.search', (c, { query }) =>
    c.json(
      canvasHistory.search(c.principal!, {
        q: query.q,
        nodeId: query.node_id,
        offset: numericCursor(query.after),
        limit: query.limit ?? SEARCH_LIMIT,
      }),
    ),
  );
  mount(app, 'canvas.history.grep', async (c, { query }) =>
    c.json(
      await canvasHistory.grep(c.principal!, {
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
      canvasHistory.read(c.principal!, {
        nodeId: query.node_id,
        fromTurn: query.from_turn ?? 1,
        limit: query.limit ?? DEFAULT_LIMIT,
      }),
    ),
  );
  mount(app, 'canvas.history.stats', (c, { query }) =>
    c.json(
      canvasHistory.stats(c.principal!, { since: query.since, groupBy: query.group_by ?? 'day' }),
    ),
  );
}
