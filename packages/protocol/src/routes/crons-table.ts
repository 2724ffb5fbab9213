/**
 * The `crons` routes (docs/api-v1.md "Crons"). `svc:schedule` gates every change; reading needs
 * any token. The owner sees every cron, an app its own (`own-app`); anyone else's answers 404.
 */
import { listOf } from '../schemas/common.ts';
import {
  cronCreateBodySchema,
  cronDeleteResultSchema,
  cronListQuerySchema,
  cronParamsSchema,
  cronRunResultSchema,
  cronSchema,
} from '../schemas/crons.ts';
import type { RouteDef } from './route-def.ts';

const SCHEDULE = { kind: 'scope', scope: 'svc:schedule' } as const;
const TOKEN = { kind: 'token' } as const;

export const cronsRoutes = [
  {
    id: 'crons.create',
    method: 'POST',
    path: '/v1/crons',
    auth: SCHEDULE,
    summary:
      "Create a cron: each fire creates a root node with its task, inside the creator's scope ceiling",
    body: cronCreateBodySchema,
    response: cronSchema,
    errors: ['not_found'],
  },
  {
    id: 'crons.list',
    method: 'GET',
    path: '/v1/crons',
    auth: TOKEN,
    summary: 'List crons, newest first (an app sees its own)',
    query: cronListQuerySchema,
    response: listOf(cronSchema),
    visibility: 'own-app',
    page: { cursor: 'id' },
  },
  {
    id: 'crons.retrieve',
    method: 'GET',
    path: '/v1/crons/{id}',
    auth: TOKEN,
    summary: 'Get a cron',
    params: cronParamsSchema,
    response: cronSchema,
    visibility: 'own-app',
  },
  {
    id: 'crons.pause',
    method: 'POST',
    path: '/v1/crons/{id}/pause',
    auth: SCHEDULE,
    summary: 'Stop a cron firing on schedule (a paused cron answers unchanged)',
    params: cronParamsSchema,
    response: cronSchema,
    visibility: 'own-app',
  },
  {
    id: 'crons.resume',
    method: 'POST',
    path: '/v1/crons/{id}/resume',
    auth: SCHEDULE,
    summary: 'Fire on schedule again from now (an active cron answers unchanged)',
    params: cronParamsSchema,
    response: cronSchema,
    visibility: 'own-app',
  },
  {
    id: 'crons.run',
    method: 'POST',
    path: '/v1/crons/{id}/run',
    auth: SCHEDULE,
    summary: 'Fire once now, whatever the schedule, even when paused',
    params: cronParamsSchema,
    response: cronRunResultSchema,
    visibility: 'own-app',
  },
  {
    id: 'crons.delete',
    method: 'DELETE',
    path: '/v1/crons/{id}',
    auth: SCHEDULE,
    summary: 'Delete a cron (the nodes it created stay)',
    params: cronParamsSchema,
    response: cronDeleteResultSchema,
    visibility: 'own-app',
  },
  {
    id: 'crons.poke',
    method: 'POST',
    path: '/v1/crons/{id}/poke',
    auth: SCHEDULE,
    summary:
      'Re-evaluate now: recompute next_run_at from now; a scheduled time passed unfired gets the missed policy',
    params: cronParamsSchema,
    response: cronSchema,
    visibility: 'own-app',
  },
] as const satisfies readonly RouteDef[];
