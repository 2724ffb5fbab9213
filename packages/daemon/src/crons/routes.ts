/**
 * Every route of protocol's `cronsRoutes` (docs/api-v1.md "Crons"). Who sees which cron and the
 * list's pages are the table's (`visibility`, `page`); the request path applies them.
 */
import { mount, type Routes } from '../http/route.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';
import type { CronService } from './service.ts';

export interface CronRouteDeps {
  crons: CronService;
}

export function registerCronRoutes(app: Routes, { crons }: CronRouteDeps): void {
  mount(app, 'crons.create', async (c, { body }) => {
    await screenPatterns(body.task.output_schema, 'output_schema');
    return c.json(crons.create(body, c.principal!));
  });
  mount(app, 'crons.list', (c, { query }) =>
    c.page((limit, after) => crons.list(c.sight(), { state: query.state, before: after, limit })),
  );
  mount(app, 'crons.retrieve', (c, { params }) => c.json(crons.get(params.id, c.sight())));
  mount(app, 'crons.pause', (c, { params }) => c.json(crons.pause(params.id, c.sight())));
  mount(app, 'crons.resume', (c, { params }) => c.json(crons.resume(params.id, c.sight())));
  mount(app, 'crons.run', (c, { params }) => c.json(crons.run(params.id, c.sight())));
  mount(app, 'crons.delete', (c, { params }) => c.json(crons.delete(params.id, c.sight())));
  mount(app, 'crons.poke', (c, { params }) => c.json(crons.poke(params.id, c.sight())));
}
