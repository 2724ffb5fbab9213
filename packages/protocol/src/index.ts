export * from './errors.ts';
export * from './ids.ts';
export { buildOpenApiDocument } from './openapi.ts';
export * from './routes/index.ts';
export * from './schemas/index.ts';
export * from './scopes/index.ts';
