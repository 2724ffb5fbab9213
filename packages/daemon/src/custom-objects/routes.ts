import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { lastEventId } from '../http/events.ts';
import { DEFAULT_LIMIT, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import { eventStream, sseHeaders } from '../http/sse.ts';
import { streamAlive } from '../http/viewer-auth.ts';
import type { Principal } from '../ports.ts';

/** Every route of protocol's `customObjectRoutes` (docs/api-v1.md "Custom objects"). */
export function registerCustomObjects(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'customObjects.register', async (c, { body }) =>
    c.json(await ctx.customObjects.register(body, who(c))),
  );
  mount(app, 'customObjects.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = ctx.customObjects.list(who(c), { before: query.after, limit: limit + 1 });
    return c.json(page(rows, limit, (o) => o.id));
  });
  mount(app, 'customObjects.retrieve', (c, { params }) =>
    c.json(ctx.customObjects.get(params.id, who(c))),
  );
  mount(app, 'customObjects.unregister', (c, { params }) =>
    c.json(ctx.customObjects.unregister(params.id, who(c))),
  );
  mount(app, 'customObjects.publish', async (c, { params, body }) =>
    c.json(await ctx.customObjects.publish(params.id, who(c), body)),
  );
  mount(app, 'customObjects.ack', (c, { params, body }) =>
    c.json(ctx.customObjects.ack(params.id, who(c), body.delivery_ids)),
  );
  // The stream starts at seq 0 and the reader sends, in seq order, every unacknowledged
  // delivery (whatever the cursor says) and the acknowledged ones after the cursor; then live
  // ones as they come.
  mount(app, 'customObjects.receive', (c, { params, query }) => {
    const after = lastEventId(c.header('last-event-id')) ?? query.after;
    const queue = ctx.customObjects.queueReader(params.id, who(c), after);
    const holds = streamAlive(c, ctx.viewer, ctx.tokens);
    const stream = eventStream(ctx.events, ctx.sse, {
      after: 0,
      kinds: undefined,
      keepaliveMs: ctx.sseKeepaliveMs,
      signal: c.signal,
      read: queue.read,
      alive: () => queue.alive() && holds(),
    });
    return c.body(stream, 200, sseHeaders(ctx.sseKeepaliveMs));
  });
}
