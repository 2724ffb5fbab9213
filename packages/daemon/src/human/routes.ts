import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { DEFAULT_LIMIT, page } from '../http/page.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';

/** Every route of protocol's `humanRoutes` (docs/api-v1.md "Human requests and the inbox"). */
export function registerHuman(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;
  const human = ctx.human;

  mount(app, 'human.requests.create', async (c, { body }) => {
    await screenPatterns(body.response_schema, 'response_schema');
    return c.json(human.create(body, who(c)));
  });
  mount(app, 'human.requests.retrieve', (c, { params }) => c.json(human.get(params.id, who(c))));
  mount(app, 'human.requests.replace', async (c, { params, body }) => {
    await screenPatterns(body.response_schema, 'response_schema');
    return c.json(human.replace(params.id, body, who(c)));
  });
  mount(app, 'human.requests.respond', (c, { params, body }) =>
    c.json(human.respond(params.id, body, who(c))),
  );
  mount(app, 'human.requests.dismiss', (c, { params, body }) =>
    c.json(human.dismiss(params.id, body.reason, who(c))),
  );
  mount(app, 'human.requests.cancel', (c, { params, body }) =>
    c.json(human.cancel(params.id, body.reason, who(c))),
  );

  mount(app, 'human.inbox.list', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = human.inbox({ state: query.state, before: query.after, limit: limit + 1 });
    return c.json(page(rows, limit, (t) => t.id));
  });
  mount(app, 'human.inbox.history', (c, { query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = human.history({ state: query.state, before: query.after, limit: limit + 1 });
    return c.json(page(rows, limit, (t) => t.id));
  });
  mount(app, 'human.inbox.retrieve', (c, { params }) => c.json(human.ticket(params.ticket_id)));
  mount(app, 'human.inbox.respond', (c, { params, body }) =>
    c.json(human.respondTicket(params.ticket_id, body)),
  );
  mount(app, 'human.inbox.progress', (c, { params, body }) =>
    c.json(human.progress(params.ticket_id, body.note)),
  );
  mount(app, 'human.inbox.cancel', (c, { params, body }) =>
    c.json(human.decline(params.ticket_id, body.reason)),
  );
  mount(app, 'human.inbox.response', (c, { params }) => c.json(human.response(params.ticket_id)));
}
