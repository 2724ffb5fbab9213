import { mount, type Routes } from '../http/route.ts';
import type { PluginService } from './service.ts';

export interface PluginRouteDeps {
  plugins: PluginService;
}

export function registerPluginRoutes(app: Routes, { plugins }: PluginRouteDeps): void {
  // The body's `token` fetches the archive once; no answer, event or log line carries it.
  mount(app, 'plugins.install', async (c, { body }) => c.json(await plugins.install(body)));
  mount(app, 'plugins.list', (c) => c.page((limit, after) => plugins.list(after ?? '', limit)));
  mount(app, 'plugins.retrieve', (c, { params }) => c.json(plugins.retrieve(params.name)));
  mount(app, 'plugins.remove', (c, { params }) => c.json(plugins.remove(params.name)));
}
