export * from './errors.ts';
export * from './ids.ts';
export * from './nodes/index.ts';
export { buildOpenApiDocument } from './openapi.ts';
export * from './routes/index.ts';
export { type NodeRouteId, nodeRouteById, nodeRoutes } from './routes/node-routes.ts';
export * from './schemas/index.ts';
export * from './scopes/index.ts';
