/**
 * The `shares` routes (docs/api-v1.md "Shares"), part of the application-facing API. Making a
 * share needs `svc:files:share` (the owner holds it) and, for an app, a files scope of its own
 * covering the path at that mode. The owner sees every share, an app those made to it or by it.
 */
import { listOf } from '../schemas/common.ts';
import {
  shareCreateBodySchema,
  shareDeleteResultSchema,
  shareListQuerySchema,
  shareParamsSchema,
  shareSchema,
} from '../schemas/shares.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const sharesRoutes = [
  {
    id: 'shares.create',
    method: 'POST',
    path: '/v1/shares',
    auth: { kind: 'scope', scope: 'svc:files:share' },
    summary:
      "Share a host path with an app: its tokens reach it through the files routes, never past the creator's own files scopes",
    body: shareCreateBodySchema,
    response: shareSchema,
    errors: ['forbidden'],
  },
  {
    id: 'shares.list',
    method: 'GET',
    path: '/v1/shares',
    auth: TOKEN,
    summary: 'Live shares, newest first (an app sees those made to it or by it)',
    query: shareListQuerySchema,
    response: listOf(shareSchema),
    errors: ['forbidden'],
    // Made to or by the app: the rule is tested on both columns.
    visibility: 'own-app',
    page: { cursor: 'id' },
  },
  {
    id: 'shares.delete',
    method: 'DELETE',
    path: '/v1/shares/{id}',
    auth: TOKEN,
    summary: 'End a share (the owner, or the app that made it)',
    params: shareParamsSchema,
    response: shareDeleteResultSchema,
    errors: ['forbidden'],
    visibility: 'own-app',
  },
] as const satisfies readonly RouteDef[];
