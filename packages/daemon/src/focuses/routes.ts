import { mount, type Routes } from '../http/route.ts';
import type { FocusService } from './service.ts';

export interface FocusRouteDeps {
  focuses: FocusService;
}

/**
 * The `focuses` routes (docs/api-v1.md "Focuses"). A focus is seen as its node is: by the nodes
 * resource's own rule, which the service asks.
 */
export function registerFocusRoutes(app: Routes, { focuses }: FocusRouteDeps): void {
  mount(app, 'focuses.set', (c, { params, body }) =>
    c.json(focuses.set(params.node_id, body.pane, c.principal!)),
  );
  mount(app, 'focuses.list', (c, { query }) =>
    c.page((limit, after) =>
      focuses.list(c.principal!, { pane: query.pane, before: after, limit }),
    ),
  );
  mount(app, 'focuses.retrieve', (c, { params }) =>
    c.json(focuses.get(params.node_id, c.principal!)),
  );
  mount(app, 'focuses.delete', (c, { params }) =>
    c.json(focuses.delete(params.node_id, c.principal!)),
  );
}
