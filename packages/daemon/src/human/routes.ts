/**
 * Every route of protocol's `humanRoutes` (docs/api-v1.md "Human requests and the inbox"). Who
 * sees which request and the inbox's pages are the table's (`visibility`, `page`); the request
 * path applies them.
 */
import { mount, type Routes } from '../http/route.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';
import type { HumanService } from './service.ts';

export interface HumanRouteDeps {
  human: HumanService;
}

export function registerHumanRoutes(app: Routes, { human }: HumanRouteDeps): void {
  mount(app, 'human.requests.create', async (c, { body }) => {
    await screenPatterns(body.response_schema, 'response_schema');
    return c.json(human.create(body, c.principal!));
  });
  mount(app, 'human.requests.retrieve', (c, { params }) => c.json(human.get(params.id, c.sight())));
  mount(app, 'human.requests.replace', async (c, { params, body }) => {
    await screenPatterns(body.response_schema, 'response_schema');
    return c.json(human.replace(params.id, body, c.sight()));
  });
  mount(app, 'human.requests.respond', (c, { params, body }) =>
    c.json(human.respond(params.id, body, c.sight())),
  );
  mount(app, 'human.requests.dismiss', (c, { params, body }) =>
    c.json(human.dismiss(params.id, body.reason, c.sight())),
  );
  mount(app, 'human.requests.cancel', (c, { params, body }) =>
    c.json(human.cancel(params.id, body.reason, c.principal!, c.sight())),
  );

  mount(app, 'human.inbox.list', (c, { query }) =>
    c.page((limit, after) => human.inbox({ state: query.state, before: after, limit })),
  );
  mount(app, 'human.inbox.history', (c, { query }) =>
    c.page((limit, after) => human.history({ state: query.state, before: after, limit })),
  );
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
