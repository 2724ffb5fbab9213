import type { DaemonContext } from '../context.ts';
import { registerNodeRoutes } from '../nodes/routes.ts';
import { registerRunRoutes } from '../runs/routes.ts';
import { registerBash } from './bash.ts';
import { registerBroker } from './broker.ts';
import { registerCanvas } from './canvas.ts';
import { registerConnect } from './connect.ts';
import { registerCrons } from './crons.ts';
import { registerCustomObjects } from './custom-objects.ts';
import { registerDirectory } from './directory.ts';
import { registerEvents } from './events.ts';
import { registerFiles } from './files.ts';
import { registerFocuses } from './focuses.ts';
import { registerGrant } from './grant.ts';
import { registerHealth } from './health.ts';
import { registerHuman } from './human.ts';
import { registerLlm } from './llm.ts';
import { registerMemory } from './memory.ts';
import { registerModelAuth } from './model-auth.ts';
import { registerModelConfig } from './model-config.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPlugins } from './plugins.ts';
import { registerProfiles } from './profiles.ts';
import { registerProviders } from './providers.ts';
import { registerQuestions } from './questions.ts';
import { registerReadiness } from './readiness.ts';
import { createRequestPath, type RequestPath } from './request-path.ts';
import type { Routes } from './route.ts';
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
  registerNodeRoutes(app, ctx);
  registerRunRoutes(app, ctx);
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
