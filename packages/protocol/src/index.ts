// Star exports only: a named re-export here would make this file part of a bundle whenever one
// of its names is used, and with it every module it lists (esbuild's code splitting follows a
// used file's imports), so the CLI's light commands would load every schema and the route table.
export * from './errors.ts';
export * from './ids.ts';
export * from './limits.ts';
export * from './nodes/index.ts';
export * from './openapi.ts';
export * from './routes/index.ts';
export * from './routes/node-routes.ts';
export * from './schemas/index.ts';
export * from './scopes/index.ts';
