export { canvasRoutes } from './canvas-table.ts';
export { cronsRoutes } from './crons-table.ts';
export { customObjectRoutes } from './custom-objects-table.ts';
export { humanRoutes } from './human-table.ts';
export { findRoute, type RouteMatch } from './match.ts';
export {
  type HttpMethod,
  type RouteAuth,
  type RouteDef,
  type RoutePage,
  VISIBILITIES,
  type Visibility,
} from './route-def.ts';
export { type RouteId, routeById, routes } from './table.ts';
