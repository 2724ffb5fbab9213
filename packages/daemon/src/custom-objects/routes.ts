import { lastEventId } from '../events/last-event-id.ts';
import type { EventLog } from '../events/log.ts';
import { mount, type Routes } from '../http/route.ts';
import { eventStream, type SseRegistry, sseHeaders } from '../http/sse.ts';
import { streamAlive } from '../http/viewer-auth.ts';
import type { ViewerSessions } from '../ports.ts';
import type { TokenService } from '../tokens/service.ts';
import type { CustomObjectService } from './service.ts';

export interface CustomObjectRouteDeps {
  customObjects: CustomObjectService;
  /** The receive stream's parts: the log it reads, its listeners, and who must still hold. */
  events: EventLog;
  sse: SseRegistry;
  sseKeepaliveMs: number;
  viewer: ViewerSessions;
  tokens: Pick<TokenService, 'stillLive'>;
}

/** Every route of protocol's `customObjectRoutes` (docs/api-v1.md "Custom objects"). */
export function registerCustomObjectRoutes(app: Routes, deps: CustomObjectRouteDeps): void {
  const objects = deps.customObjects;

  mount(app, 'customObjects.register', async (c, { body }) =>
    c.json(await objects.register(body, c.principal!)),
  );
  mount(app, 'customObjects.list', (c) =>
    c.page((limit, after) => objects.list(c.principal!, c.sight(), { before: after, limit })),
  );
  mount(app, 'customObjects.retrieve', (c, { params }) =>
    c.json(objects.get(params.id, c.principal!, c.sight())),
  );
  mount(app, 'customObjects.unregister', (c, { params }) =>
    c.json(objects.unregister(params.id, c.principal!, c.sight())),
  );
  mount(app, 'customObjects.publish', async (c, { params, body }) =>
    c.json(await objects.publish(params.id, c.principal!, c.sight(), body)),
  );
  mount(app, 'customObjects.ack', (c, { params, body }) =>
    c.json(objects.ack(params.id, c.principal!, c.sight(), body.delivery_ids)),
  );
  // The stream starts at seq 0 and the reader sends, in seq order, every unacknowledged
  // delivery (whatever the cursor says) and the acknowledged ones after the cursor; then live
  // ones as they come.
  mount(app, 'customObjects.receive', (c, { params, query }) => {
    const after = lastEventId(c.header('last-event-id')) ?? query.after;
    const queue = objects.queueReader(params.id, c.sight(), after);
    const holds = streamAlive(c, deps.viewer, deps.tokens);
    const stream = eventStream(deps.events, deps.sse, {
      after: 0,
      kinds: undefined,
      keepaliveMs: deps.sseKeepaliveMs,
      signal: c.signal,
      read: queue.read,
      alive: () => queue.alive() && holds(),
    });
    return c.body(stream, 200, sseHeaders(deps.sseKeepaliveMs));
  });
}
