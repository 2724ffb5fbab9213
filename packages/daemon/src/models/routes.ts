import { mount, type Routes } from '../http/route.ts';
import type { ModelService } from './service.ts';

export interface ModelRouteDeps {
  models: ModelService;
}

/**
 * `models.credentials` and `models.config`: owner only (the route table says so); no answer
 * carries a key.
 */
export function registerModelRoutes(app: Routes, deps: ModelRouteDeps): void {
  const { models } = deps;
  mount(app, 'models.credentials.list', (c) => {
    const data = models.listCredentials();
    return c.json({ data, has_more: false, next_cursor: null });
  });
  mount(app, 'models.credentials.install', (c, { params, body }) =>
    c.json(models.installCredential(params.provider, body)),
  );
  mount(app, 'models.credentials.remove', (c, { params }) => {
    models.removeCredential(params.provider);
    return c.json({ ok: true });
  });
  mount(app, 'models.config.retrieve', (c) => c.json(models.config()));
  mount(app, 'models.config.update', (c, { body }) => c.json(models.updateConfig(body)));
}
