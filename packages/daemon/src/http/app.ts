import { registerCanvasRoutes } from '../canvas/routes.ts';
import { registerConnectRoutes } from '../connect/routes.ts';
import type { DaemonContext } from '../context.ts';
import { registerCronRoutes } from '../crons/routes.ts';
import { registerCustomObjectRoutes } from '../custom-objects/routes.ts';
import { registerDirectoryRoutes } from '../directory/routes.ts';
import { registerFocusRoutes } from '../focuses/routes.ts';
import { registerHuman } from '../human/routes.ts';
import { registerLlmRoutes } from '../llm/routes.ts';
import { registerModelRoutes } from '../models/routes.ts';
import { registerProfileRoutes } from '../profiles/routes.ts';
import { registerProviderRoutes } from '../providers/routes.ts';
import { registerQuestions } from '../questions/routes.ts';
import { registerShareRoutes } from '../shares/routes.ts';
import { registerUploadRoutes } from '../uploads/routes.ts';
import { registerViewerRoutes } from '../viewer/routes.ts';
import { registerBash } from './bash.ts';
import { registerBroker } from './broker.ts';
import { registerEvents } from './events.ts';
import { registerFiles } from './files.ts';
import { registerGrant } from './grant.ts';
import { registerHealth } from './health.ts';
import { registerMemory } from './memory.ts';
import { registerNodes } from './nodes.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPlugins } from './plugins.ts';
import { registerReadiness } from './readiness.ts';
import { createRequestPath, type RequestPath } from './request-path.ts';
import type { Routes } from './route.ts';
import { registerRuns } from './runs.ts';
import { registerShutdown } from './shutdown.ts';
import { registerStatus } from './status.ts';
import { registerTokens } from './tokens.ts';

/** The daemon's `/v1`: its handlers by route id, and the request path both listeners serve. */
export interface App {
  readonly routes: Routes;
  readonly serve: RequestPath;
}

export function createApp(ctx: DaemonContext): App {
  const app: Routes = new Map();
  registerHealth(app, ctx);
  registerDirectoryRoutes(app, ctx);
  registerStatus(app, ctx);
  registerReadiness(app, ctx);
  registerGrant(app);
  registerOpenApi(app, ctx);
  registerEvents(app, ctx);
  registerConnectRoutes(app, ctx);
  registerTokens(app, ctx);
  registerShutdown(app, ctx);
  registerBash(app, ctx);
  registerFiles(app, ctx);
  registerProfileRoutes(app, ctx);
  registerPlugins(app, ctx);
  registerProviderRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerLlmRoutes(app, ctx);
  registerNodes(app, ctx);
  registerRuns(app, ctx);
  registerCronRoutes(app, ctx);
  registerCustomObjectRoutes(app, ctx);
  registerCanvasRoutes(app, ctx);
  registerHuman(app, ctx);
  registerMemory(app, ctx);
  registerBroker(app, ctx);
  registerViewerRoutes(app, ctx);
  registerUploadRoutes(app, ctx);
  registerShareRoutes(app, ctx);
  registerQuestions(app, ctx);
  registerFocusRoutes(app, ctx);
  return { routes: app, serve: createRequestPath(ctx, app) };
}
