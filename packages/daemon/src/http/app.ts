import { registerBashRoutes } from '../bash/routes.ts';
import type { DaemonContext } from '../context.ts';
import { registerFilesRoutes } from '../files/routes.ts';
import { registerMemoryRoutes } from '../memory/routes.ts';
import { registerPluginRoutes } from '../plugins/routes.ts';
import { registerSystemRoutes } from '../system/routes.ts';
import { registerTokenRoutes } from '../tokens/routes.ts';
import { registerBroker } from './broker.ts';
import { registerCanvas } from './canvas.ts';
import { registerConnect } from './connect.ts';
import { registerCrons } from './crons.ts';
import { registerCustomObjects } from './custom-objects.ts';
import { registerDirectory } from './directory.ts';
import { registerEvents } from './events.ts';
import { registerFocuses } from './focuses.ts';
import { registerHuman } from './human.ts';
import { registerLlm } from './llm.ts';
import { registerModelAuth } from './model-auth.ts';
import { registerModelConfig } from './model-config.ts';
import { registerNodes } from './nodes.ts';
import { registerProfiles } from './profiles.ts';
import { registerProviders } from './providers.ts';
import { registerQuestions } from './questions.ts';
import { createRequestPath, type RequestPath } from './request-path.ts';
import type { Routes } from './route.ts';
import { registerRuns } from './runs.ts';
import { registerShares } from './shares.ts';
import { registerUploads } from './uploads.ts';
import { registerViewer } from './viewer.ts';

/** The daemon's `/v1`: its handlers by route id, and the request path both listeners serve. */
export interface App {
  readonly routes: Routes;
  readonly serve: RequestPath;
}

export function createApp(ctx: DaemonContext): App {
  const app: Routes = new Map();
  registerSystemRoutes(app, ctx);
  registerDirectory(app, ctx.directory);
  registerEvents(app, ctx);
  registerConnect(app, ctx);
  registerTokenRoutes(app, ctx);
  registerBashRoutes(app, ctx);
  registerFilesRoutes(app, ctx);
  registerProfiles(app, ctx);
  registerPluginRoutes(app, ctx);
  registerProviders(app, ctx);
  registerModelAuth(app, ctx);
  registerModelConfig(app, ctx);
  registerLlm(app, ctx);
  registerNodes(app, ctx);
  registerRuns(app, ctx);
  registerCrons(app, ctx);
  registerCustomObjects(app, ctx);
  registerCanvas(app, ctx);
  registerHuman(app, ctx);
  registerMemoryRoutes(app, ctx);
  registerBroker(app, ctx);
  registerViewer(app, ctx);
  registerUploads(app, ctx);
  registerShares(app, ctx);
  registerQuestions(app, ctx);
  registerFocuses(app, ctx);
  return { routes: app, serve: createRequestPath(ctx, app) };
}
