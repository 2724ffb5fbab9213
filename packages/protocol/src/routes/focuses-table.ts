/**
 * The `focuses` routes (docs/api-v1.md "Focuses"): a node's terminal-multiplexer pane, for the
 * viewer. Reading needs any token that sees the node. Writing needs the owner, a token holding
 * `svc:act` that sees the node, or a node token for its own node (a broker running in a pane
 * registers itself), so the route takes any token and the handler checks the rest. A focus is
 * seen as its node is (`tree`: writes' rule, not `tree-read`), by the node's own row.
 */
import { listOf } from '../schemas/common.ts';
import {
  focusDeleteResultSchema,
  focusListQuerySchema,
  focusParamsSchema,
  focusSchema,
  focusSetBodySchema,
} from '../schemas/focuses.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const focusesRoutes = [
  {
    id: 'focuses.set',
    method: 'PUT',
    path: '/v1/focuses/{node_id}',
    auth: TOKEN,
    summary:
      "Set the pane showing a node, replacing its previous one (svc:act, or the node's own token)",
    params: focusParamsSchema,
    body: focusSetBodySchema,
    response: focusSchema,
    errors: ['scope_missing'],
    visibility: 'tree',
  },
  {
    id: 'focuses.list',
    method: 'GET',
    path: '/v1/focuses',
    auth: TOKEN,
    summary: 'The focuses of the nodes the caller sees, newest node first',
    query: focusListQuerySchema,
    response: listOf(focusSchema),
    page: { cursor: 'node_id' },
    visibility: 'tree',
  },
  {
    id: 'focuses.retrieve',
    method: 'GET',
    path: '/v1/focuses/{node_id}',
    auth: TOKEN,
    summary: "A node's focus; 404 when it has none",
    params: focusParamsSchema,
    response: focusSchema,
    visibility: 'tree',
  },
  {
    id: 'focuses.delete',
    method: 'DELETE',
    path: '/v1/focuses/{node_id}',
    auth: TOKEN,
    summary: "Forget a node's focus (svc:act, or the node's own token)",
    params: focusParamsSchema,
    response: focusDeleteResultSchema,
    errors: ['scope_missing'],
    visibility: 'tree',
  },
] as const satisfies readonly RouteDef[];
