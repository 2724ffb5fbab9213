import { registerCanvasRoutes } from '../canvas/routes.ts';
import type { DaemonContext } from '../context.ts';
import { registerCustomObjectRoutes } from '../custom-objects/routes.ts';
import { registerDirectoryRoutes } from '../directory/routes.ts';
import { registerFocusRoutes } from '../focuses/routes.ts';
import { registerShareRoutes } from '../shares/routes.ts';
import { registerUploadRoutes } from '../uploads/routes.ts';
import { registerViewerRoutes } from '../viewer/routes.ts';
import { registerBash } from './bash.ts';
import { registerBroker } from './broker.ts';
import { registerConnect } from './connect.ts';
import { registerCrons } from './crons.ts';
import { registerEvents } from './events.ts';
import { registerFiles } from './files.ts';
import { registerGrant } from './grant.ts';
import { registerHealth } from './health.ts';
import { registerHuman } from './human.ts';
import { registerLlm } from './llm.ts';
import { registerMemory } from './memory.ts';
import { registerModelAuth } from './model-auth.ts';
import { registerModelConfig } from './model-config.ts';
import { registerNodes } from './nodes.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPlugins } from './plugins.ts';
import { registerProfiles } from './profiles.ts';
import { registerProviders } from './providers.ts';
import { registerQuestions } from './questions.ts';
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
  registerConnect(app, ctx);
  registerTokens(app, ctx);
  registerShutdown(app, ctx);
  registerBash(app, ctx);
  registerFiles(app, ctx);
  registerProfiles(app, ctx);
  registerPlugins(app, ctx);
  registerProviders(app, ctx);
  registerModelAuth(app, ctx);
  registerModelConfig(app, ctx);
  registerLlm(app, ctx);
  registerNodes(app, ctx);
  registerRuns(app, ctx);
  registerCrons(app, ctx);
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
