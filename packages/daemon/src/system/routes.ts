/** The daemon's own small routes: health, readiness, status, shutdown and the OpenAPI document. */
import type { Routes } from '../http/route.ts';
import { registerHealth } from './health.ts';
import { registerOpenApi } from './openapi.ts';
import { registerReadiness } from './readiness.ts';
import { registerShutdown } from './shutdown.ts';
import { registerStatus, type StatusDeps } from './status.ts';

export interface SystemRouteDeps extends StatusDeps {
  models: { readiness(): unknown };
  requestShutdown(): void;
}

export function registerSystemRoutes(app: Routes, deps: SystemRouteDeps): void {
  registerHealth(app, deps);
  registerStatus(app, deps);
  registerReadiness(app, deps);
  registerOpenApi(app, deps);
  registerShutdown(app, deps);
}
