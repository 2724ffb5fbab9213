/**
 * The broker control plane (`brokerRoutes`): node tokens only, each for its own node (the route
 * guard refuses any other with 403 before a handler runs).
 */
import type { DirectoryService } from '../directory/service.ts';
import { mount, type Routes } from '../http/route.ts';
import type { BrokerPlane } from './service.ts';

export interface BrokerPlaneRouteDeps {
  brokers: BrokerPlane;
  /** A plugin's token, minted for the node's call of it. */
  directory: Pick<DirectoryService, 'mint'>;
}

export function registerBrokerPlaneRoutes(app: Routes, deps: BrokerPlaneRouteDeps): void {
  const plane = deps.brokers;
  mount(app, 'broker.claim', (c, { params }) =>
    c.json(plane.claim(params.id, c.principal!.tokenId)),
  );
  mount(app, 'broker.turns.record', (c, { params, body }) =>
    c.json(plane.recordTurn(params.id, body)),
  );
  mount(app, 'broker.toolResults.record', (c, { params, body }) =>
    c.json(plane.recordToolResult(params.id, body)),
  );
  mount(app, 'broker.faults.record', (c, { params, body }) =>
    c.json(plane.recordFault(params.id, body)),
  );
  mount(app, 'broker.result.submit', (c, { params, body }) =>
    c.json(plane.submit(params.id, body)),
  );
  mount(app, 'broker.reports.create', (c, { params, body }) =>
    c.json(plane.report(params.id, body)),
  );
  mount(app, 'broker.jobs.record', (c, { params, body }) =>
    c.json(plane.recordJob(params.id, body)),
  );
  mount(app, 'broker.pluginToken.mint', async (c, { params, body }) =>
    c.json(await deps.directory.mint(params.id, body.plugin, body.group)),
  );
  mount(app, 'broker.directive.get', async (c, { params, query }) =>
    c.json(await plane.directive(params.id, query.wait_s ?? 0, c.signal)),
  );
}
