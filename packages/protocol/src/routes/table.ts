/**
 * The `/v1` route table (docs/api-v1.md): one entry per route, with the auth each needs and the
 * zod schemas of its parts. The daemon mounts from it, the client and CLI read it, and the
 * OpenAPI document is generated from it. Later stages append routes here.
 */
import { bashBodySchema, bashResultSchema } from '../schemas/bash.ts';
import { listOf, listQuerySchema } from '../schemas/common.ts';
import { eventSchema, eventsQuerySchema } from '../schemas/events.ts';
import {
  filesListQuerySchema,
  filesListResultSchema,
  filesReadQuerySchema,
  filesReadResultSchema,
  filesWriteBodySchema,
  filesWriteResultSchema,
} from '../schemas/files.ts';
import { modelReadinessResponseSchema } from '../schemas/models.ts';
import { directoryKeysSchema, directoryRotateBodySchema, jwksSchema } from '../schemas/plugins.ts';
import {
  healthResponseSchema,
  healthzResponseSchema,
  openApiResponseSchema,
  shutdownResponseSchema,
  statusResponseSchema,
} from '../schemas/system.ts';
import {
  connectBodySchema,
  connectResponseSchema,
  grantResponseSchema,
  tokenParamsSchema,
  tokenSchema,
} from '../schemas/tokens.ts';
import { brokerRoutes } from './broker-table.ts';
import { canvasRoutes } from './canvas-table.ts';
import { cronsRoutes } from './crons-table.ts';
import { customObjectRoutes } from './custom-objects-table.ts';
import { focusesRoutes } from './focuses-table.ts';
import { humanRoutes } from './human-table.ts';
import { memoryRoutes } from './memory-table.ts';
import { modelRoutes } from './models-table.ts';
import { nodesRoutes } from './nodes-table.ts';
import { pluginRoutes } from './plugins-table.ts';
import { providerRoutes } from './providers-table.ts';
import { questionsRoutes } from './questions-table.ts';
import type { RouteDef } from './route-def.ts';
import { runsRoutes } from './runs-table.ts';
import { sharesRoutes } from './shares-table.ts';
import { uploadsRoutes } from './uploads-table.ts';
import { viewerRoutes } from './viewer-table.ts';

export const routes = [
  {
    id: 'healthz.get',
    method: 'GET',
    path: '/healthz',
    auth: { kind: 'public' },
    summary: 'Liveness: the daemon process answers',
    response: healthzResponseSchema,
  },
  {
    id: 'directory.jwks.get',
    method: 'GET',
    path: '/.well-known/jwks.json',
    auth: { kind: 'public' },
    summary:
      "The daemon's directory keys: directory-mode plugins verify the tokens brokers call them with against these",
    response: jwksSchema,
  },
  {
    id: 'health.get',
    method: 'GET',
    path: '/v1/health',
    auth: { kind: 'public' },
    summary: 'Health check of the TCP listener',
    response: healthResponseSchema,
  },
  {
    id: 'status.get',
    method: 'GET',
    path: '/v1/status',
    auth: { kind: 'token' },
    summary: 'Daemon status: version, pid, uptime, home, listeners',
    response: statusResponseSchema,
  },
  {
    id: 'readiness.get',
    method: 'GET',
    path: '/v1/model-auth/readiness',
    auth: { kind: 'token' },
    summary: 'Which model providers have usable credentials',
    response: modelReadinessResponseSchema,
  },
  {
    id: 'grant.get',
    method: 'GET',
    path: '/v1/grant',
    auth: { kind: 'token' },
    summary: "The calling token's kind, app and scope list",
    response: grantResponseSchema,
  },
  {
    id: 'openapi.get',
    method: 'GET',
    path: '/v1/openapi.json',
    auth: { kind: 'public' },
    summary: 'This API as an OpenAPI 3.1 document',
    response: openApiResponseSchema,
  },
  {
    id: 'events.stream',
    method: 'GET',
    path: '/v1/events',
    auth: { kind: 'owner' },
    summary: 'The event log as server-sent events, resumable with Last-Event-ID or ?after=',
    query: eventsQuerySchema,
    response: eventSchema,
    stream: 'sse',
  },
  {
    id: 'connect.create',
    method: 'POST',
    path: '/v1/connect',
    auth: { kind: 'owner' },
    summary: 'Turn the TCP listener on and return its base URL with a bearer token',
    body: connectBodySchema,
    response: connectResponseSchema,
  },
  {
    id: 'tokens.list',
    method: 'GET',
    path: '/v1/tokens',
    auth: { kind: 'owner' },
    summary: 'List tokens (never their secrets)',
    query: listQuerySchema,
    response: listOf(tokenSchema),
    page: { cursor: 'id' },
  },
  {
    id: 'tokens.revoke',
    method: 'DELETE',
    path: '/v1/tokens/{id}',
    auth: { kind: 'owner' },
    summary: 'Revoke a token',
    params: tokenParamsSchema,
    response: tokenSchema,
  },
  {
    id: 'directory.keys.list',
    method: 'GET',
    path: '/v1/directory/keys',
    auth: { kind: 'owner' },
    summary: "The directory's published keys: the one that signs, the next, then those retiring",
    response: directoryKeysSchema,
  },
  {
    id: 'directory.keys.rotate',
    method: 'POST',
    path: '/v1/directory/keys/rotate',
    auth: { kind: 'owner' },
    summary:
      'Sign with the next directory key from now on; the old one stays published for 10 minutes, or, with revoke_previous, two new keys replace every other',
    body: directoryRotateBodySchema,
    response: directoryKeysSchema,
  },
  {
    id: 'shutdown.create',
    method: 'POST',
    path: '/v1/shutdown',
    auth: { kind: 'owner' },
    summary: 'Stop the daemon: answer, then drain and exit',
    response: shutdownResponseSchema,
  },
  {
    id: 'bash.run',
    method: 'POST',
    path: '/v1/bash',
    auth: { kind: 'scope', scope: 'svc:act' },
    summary:
      "Run one command in an absolute working directory (a scoped token's in its sandbox); a non-zero exit is a value",
    body: bashBodySchema,
    response: bashResultSchema,
    errors: ['sandbox_unavailable'],
  },
  // `svc:act` at the route; the path's realpath must then be covered by a files scope of the
  // caller (the owner's `null` covers all), checked where the path is resolved.
  {
    id: 'files.read',
    method: 'GET',
    path: '/v1/files/peek',
    auth: { kind: 'scope', scope: 'svc:act' },
    summary:
      'Read a slice of a file: UTF-8 text or base64, with the whole size and whether bytes remain',
    query: filesReadQuerySchema,
    response: filesReadResultSchema,
    errors: ['not_found', 'conflict'],
  },
  {
    id: 'files.write',
    method: 'POST',
    path: '/v1/files/write',
    auth: { kind: 'scope', scope: 'svc:act' },
    summary: 'Write a whole file atomically (temp file, fsync, rename); over 1 MiB is refused',
    body: filesWriteBodySchema,
    response: filesWriteResultSchema,
  },
  {
    id: 'files.list',
    method: 'GET',
    path: '/v1/files/list',
    auth: { kind: 'scope', scope: 'svc:act' },
    summary: "A directory's entries sorted by name, with whether more exist",
    query: filesListQuerySchema,
    response: filesListResultSchema,
    errors: ['not_found', 'conflict'],
  },
  ...modelRoutes,
  ...nodesRoutes,
  ...runsRoutes,
  ...pluginRoutes,
  ...providerRoutes,
  ...brokerRoutes,
  ...cronsRoutes,
  ...customObjectRoutes,
  ...humanRoutes,
  ...memoryRoutes,
  ...canvasRoutes,
  ...viewerRoutes,
  ...uploadsRoutes,
  ...sharesRoutes,
  ...questionsRoutes,
  ...focusesRoutes,
] as const satisfies readonly RouteDef[];

export type RouteId = (typeof routes)[number]['id'];

const byId = new Map<string, RouteDef>(routes.map((r) => [r.id, r]));

/** The route with this id; throws on an unknown id (a programming error). */
export function routeById(id: RouteId): RouteDef {
  const route = byId.get(id);
  if (route === undefined) throw new TypeError(`unknown route id '${id}'`);
  return route;
}
