import { registerConnectRoutes } from '../connect/routes.ts';
import type { DaemonContext } from '../context.ts';
import { registerLlmRoutes } from '../llm/routes.ts';
import { registerModelRoutes } from '../models/routes.ts';
import { registerProfileRoutes } from '../profiles/routes.ts';
import { registerProviderRoutes } from '../providers/routes.ts';
import { registerBash } from './bash.ts';
import { registerBroker } from './broker.ts';
import { registerCanvas } from './canvas.ts';
import { registerCrons } from './crons.ts';
import { registerCustomObjects } from './custom-objects.ts';
import { registerDirectory } from './directory.ts';
import { registerEvents } from './events.ts';
import { registerFiles } from './files.ts';
import { registerFocuses } from './focuses.ts';
import { registerGrant } from './grant.ts';
import { registerHealth } from './health.ts';
import { registerHuman } from './human.ts';
import { registerMemory } from './memory.ts';
import { registerNodes } from './nodes.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPlugins } from './plugins.ts';
import { registerQuestions } from './questions.ts';
import { registerReadiness } from './readiness.ts';
import { createRequestPath, type RequestPath } from './request-path.ts';
import type { Routes } from './route.ts';
import { registerRuns } from './runs.ts';
import { registerShares } from './shares.ts';
import { registerShutdown } from './shutdown.ts';
import { registerStatus } from './status.ts';
import { registerTokens } from './tokens.ts';
import { registerUploads } from './uploads.ts';
import { registerViewer } from './viewer.ts';

/** The daemon's `/v1`: its handlers by route id, and the request path both listeners serve. */
export interface App {
  readonly routes: Routes;
  readonly serve: RequestPath;
}

export function createApp(ctx: DaemonContext): App {
  const app: Routes = new Map();
  registerHealth(app, ctx);
  registerDirectory(app, ctx.directory);
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
  registerCrons(app, ctx);
  registerCustomObjects(app, ctx);
  registerCanvas(app, ctx);
  registerHuman(app, ctx);
  registerMemory(app, ctx);
  registerBroker(app, ctx);
  registerViewer(app, ctx);
  registerUploads(app, ctx);
  registerShares(app, ctx);
  registerQuestions(app, ctx);
  registerFocuses(app, ctx);
  return { routes: app, serve: createRequestPath(ctx, app) };
}
