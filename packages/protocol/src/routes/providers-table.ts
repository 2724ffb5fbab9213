/**
 * `providers` (SPEC, resource map): the installed plugins' commands for apps and the owner. Any
 * token reaches the routes; the scope `<provider>:<group>` each command needs is checked where
 * the group is known, so a list shows only what the caller may call.
 */
import {
  providerCallBodySchema,
  providerCallResultSchema,
  providerToolsQuerySchema,
  providerToolsSchema,
} from '../schemas/providers.ts';
import type { RouteDef } from './route-def.ts';

const ANY_TOKEN = { kind: 'token' } as const;

export const providerRoutes = [
  {
    id: 'providers.tools',
    method: 'GET',
    path: '/v1/providers/tools',
    auth: ANY_TOKEN,
    summary: "The installed plugins' commands whose `<provider>:<group>` the caller's scopes cover",
    query: providerToolsQuerySchema,
    response: providerToolsSchema,
  },
  {
    id: 'providers.call',
    method: 'POST',
    path: '/v1/provider/call',
    auth: ANY_TOKEN,
    summary:
      "Call an installed plugin's command, authenticated as a node's call is; a plugin's 4xx envelope passes through, any other failure is a 502 provider_error",
    body: providerCallBodySchema,
    response: providerCallResultSchema,
    errors: ['scope_missing', 'not_found', 'invalid_state', 'provider_error'],
  },
] as const satisfies readonly RouteDef[];
