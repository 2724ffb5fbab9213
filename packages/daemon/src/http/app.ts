import { registerBashRoutes } from '../bash/routes.ts';
import { registerBrokerPlaneRoutes } from '../broker-plane/routes.ts';
import { registerCanvasRoutes } from '../canvas/routes.ts';
import { registerConnectRoutes } from '../connect/routes.ts';
import type { DaemonContext } from '../context.ts';
import { registerCronRoutes } from '../crons/routes.ts';
import { registerCustomObjectRoutes } from '../custom-objects/routes.ts';
import { registerDirectoryRoutes } from '../directory/routes.ts';
import { registerEventRoutes } from '../events/routes.ts';
import { registerFilesRoutes } from '../files/routes.ts';
import { registerFocusRoutes } from '../focuses/routes.ts';
import { registerHumanRoutes } from '../human/routes.ts';
import { registerLlmRoutes } from '../llm/routes.ts';
import { registerMemoryRoutes } from '../memory/routes.ts';
import { registerModelRoutes } from '../models/routes.ts';
import { registerNodeRoutes } from '../nodes/routes.ts';
import { registerPluginRoutes } from '../plugins/routes.ts';
import { registerProfileRoutes } from '../profiles/routes.ts';
import { registerProviderRoutes } from '../providers/routes.ts';
import { registerQuestionRoutes } from '../questions/routes.ts';
import { registerRunRoutes } from '../runs/routes.ts';
import { registerShareRoutes } from '../shares/routes.ts';
import { registerSystemRoutes } from '../system/routes.ts';
import { registerTokenRoutes } from '../tokens/routes.ts';
import { registerUploadRoutes } from '../uploads/routes.ts';
import { registerViewerRoutes } from '../viewer/routes.ts';
import { createRequestPath, type RequestPath } from './request-path.ts';
import type { Routes } from './route.ts';

/** The daemon's `/v1`: its handlers by route id, and the request path both listeners serve. */
export interface App {
  readonly routes: Routes;
  readonly serve: RequestPath;
}

export function createApp(ctx: DaemonContext): App {
  const app: Routes = new Map();
  registerBashRoutes(app, ctx);
  registerCanvasRoutes(app, ctx);
  registerConnectRoutes(app, ctx);
  registerCronRoutes(app, ctx);
  registerCustomObjectRoutes(app, ctx);
  registerDirectoryRoutes(app, ctx);
  registerFilesRoutes(app, ctx);
  registerFocusRoutes(app, ctx);
  registerHumanRoutes(app, ctx);
  registerLlmRoutes(app, ctx);
  registerMemoryRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerNodeRoutes(app, ctx);
  registerPluginRoutes(app, ctx);
  registerProfileRoutes(app, ctx);
  registerProviderRoutes(app, ctx);
  registerQuestionRoutes(app, ctx);
  registerRunRoutes(app, ctx);
  registerShareRoutes(app, ctx);
  registerSystemRoutes(app, ctx);
  registerTokenRoutes(app, ctx);
  registerUploadRoutes(app, ctx);
  registerViewerRoutes(app, ctx);
  registerBrokerPlaneRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  return { routes: app, serve: createRequestPath(ctx, app) };
}
