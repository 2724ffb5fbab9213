/**
 * Every route of "nodes that really run": nodes, the broker's control plane, runs, profiles,
 * models and `/v1/llm`. Kept apart from `routes` until the daemon serves them; the lead then
 * merges `nodeRoutes` into the main table (docs/nodes.md has the namespace.method → route map).
 */
import { brokerRoutes } from './broker-table.ts';
import { modelRoutes } from './models-table.ts';
import { nodesRoutes } from './nodes-table.ts';
import type { RouteDef } from './route-def.ts';
import { runsRoutes } from './runs-table.ts';

export const nodeRoutes = [
  ...nodesRoutes,
  ...brokerRoutes,
  ...runsRoutes,
  ...modelRoutes,
] as const satisfies readonly RouteDef[];

export type NodeRouteId = (typeof nodeRoutes)[number]['id'];

const byId = new Map<string, RouteDef>(nodeRoutes.map((r) => [r.id, r]));

/** The node route with this id; throws on an unknown id (a programming error). */
export function nodeRouteById(id: NodeRouteId): RouteDef {
  const route = byId.get(id);
  if (route === undefined) throw new TypeError(`unknown route id '${id}'`);
  return route;
}
