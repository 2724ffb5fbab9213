import { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { registerBash } from './bash.ts';
import { registerBroker } from './broker.ts';
import { registerConnect } from './connect.ts';
import type { AppEnv } from './env.ts';
import { errorResponse, handleError } from './errors.ts';
import { registerEvents } from './events.ts';
import { registerGrant } from './grant.ts';
import { registerHealth } from './health.ts';
import { registerLlm } from './llm.ts';
import { registerModelAuth } from './model-auth.ts';
import { registerModelConfig } from './model-config.ts';
import { registerNodes } from './nodes.ts';
import { registerOpenApi } from './openapi.ts';
import { registerProfiles } from './profiles.ts';
import { registerReadiness } from './readiness.ts';
import { requestPath } from './request-context.ts';
import { registerRuns } from './runs.ts';
import { registerShutdown } from './shutdown.ts';
import { registerStatus } from './status.ts';
import { registerTokens } from './tokens.ts';

/**
 * The daemon's `/v1` app, shared by both listeners (the adapter passes which one in
 * `c.env.listener`). One middleware, `requestPath`, runs the whole request path (request id and
 * log line, Host allow-list, CORS, route lookup and auth, input, Idempotency-Key) in one pass,
 * then calls the route's handler.
 */
export function createApp(ctx: DaemonContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestPath(ctx));

  registerHealth(app, ctx);
  registerStatus(app, ctx);
  registerReadiness(app, ctx);
  registerGrant(app);
  registerOpenApi(app, ctx);
  registerEvents(app, ctx);
  registerConnect(app, ctx);
  registerTokens(app, ctx);
  registerShutdown(app, ctx);
  registerBash(app, ctx);
  registerProfiles(app, ctx);
  registerModelAuth(app, ctx);
  registerModelConfig(app, ctx);
  registerLlm(app, ctx);
  registerNodes(app, ctx);
  registerRuns(app, ctx);
  registerBroker(app, ctx);

  // Reached only for a route of the protocol's table this daemon has no handler for yet.
  app.notFound((c) =>
    errorResponse(
      c,
      new ApiError('not_found', `${c.req.method} ${c.req.path} is not served by this daemon`),
    ),
  );
  app.onError(handleError);
  return app;
}
