/**
 * The plugin registry (DESIGN §5): installing a capability provider reads its archive once and
 * keeps what it declares. Owner only, like every administrative route.
 */
import { listOf, listQuerySchema } from '../schemas/common.ts';
import { pluginInstallBodySchema, pluginParamsSchema, pluginSchema } from '../schemas/plugins.ts';
import type { RouteDef } from './route-def.ts';

const OWNER = { kind: 'owner' } as const;

export const pluginRoutes = [
  {
    id: 'plugins.install',
    method: 'POST',
    path: '/v1/plugins',
    auth: OWNER,
    summary:
      "Read a plugin's archive from its endpoint and install (or update) it; compressed archives and paths outside the endpoint are refused",
    body: pluginInstallBodySchema,
    response: pluginSchema,
  },
  {
    id: 'plugins.list',
    method: 'GET',
    path: '/v1/plugins',
    auth: OWNER,
    summary: 'List the installed plugins, by name',
    query: listQuerySchema,
    response: listOf(pluginSchema),
    page: { cursor: 'name' },
  },
  {
    id: 'plugins.retrieve',
    method: 'GET',
    path: '/v1/plugins/{name}',
    auth: OWNER,
    summary: 'Get an installed plugin',
    params: pluginParamsSchema,
    response: pluginSchema,
  },
  {
    id: 'plugins.remove',
    method: 'DELETE',
    path: '/v1/plugins/{name}',
    auth: OWNER,
    summary: 'Uninstall a plugin; answers what was removed',
    params: pluginParamsSchema,
    response: pluginSchema,
  },
] as const satisfies readonly RouteDef[];
