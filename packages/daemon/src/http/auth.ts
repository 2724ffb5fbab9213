import {
  findRoute,
  isFinal,
  listCovers,
  type NodeState,
  type RouteDef,
  type RouteMatch,
  routes,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';

/** What auth asks of the tokens (the tokens service is one). */
export interface BearerTokens {
  /** The principal of a bearer secret; `null` when unknown, revoked or expired. */
  authenticate(secret: string): Principal | null;
  /** The state of a node token's node; `undefined` once it is gone. */
  nodeState(nodeId: string): NodeState | undefined;
}

/**
 * The principal a request acts as under `route`'s `auth`: none for a public route, else the
 * bearer token's (or `session`'s, a viewer cookie's owner, already verified), which must be any
 * token, the owner's, one whose scopes cover the route's, or a node token (for its own node only).
 */
export function authenticate(
  match: RouteMatch,
  authorization: string | undefined,
  tokens: BearerTokens,
  session?: () => Principal | null,
): Principal | null {
  const principal = authorize(match.route, bearer(authorization), tokens, session);
  // A node token acts on node routes for its own node only: another node's broker routes, mail
  // and waits would make it a second writer of that node's conversation.
  if (match.route.auth.kind === 'node' && principal?.nodeId !== match.params.id) {
    throw new ApiError(
      'forbidden',
      `a node token may call ${match.route.path} only for its own node`,
    );
  }
  // A node token speaks for a node that still works. Once the node ended, only its broker's own
  // routes take it (the last records of a stopping broker); once the node is gone, nothing does.
  // Otherwise a cancelled or pruned node's token would go on creating nodes and reading memory.
  if (principal?.kind === 'node' && match.route.auth.kind !== 'node') {
    const state = tokens.nodeState(principal.nodeId!);
    if (state === undefined) {
      throw new ApiError('unauthorized', 'the node of this token no longer exists');
    }
    if (isFinal(state)) {
      throw new ApiError(
        'forbidden',
        `node ${principal.nodeId} is ${state}: its token acts on nothing but its broker's own routes`,
      );
    }
  }
  // A publish token is its object's alone (its `tokenId` is the object's id).
  if (principal?.kind === 'publish' && principal.tokenId !== match.params.id) {
    throw new ApiError('forbidden', 'this publish token is for another custom object');
  }
  return principal;
}

/** No path parameters: shared by every match of a literal route, never written to. */
const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The routes without parameters by method, then path: most requests, found without a scan. */
const literalRoutes = new Map<string, Map<string, RouteMatch>>();
for (const route of routes) {
  if (route.path.includes('{')) continue;
  const byPath = literalRoutes.get(route.method) ?? new Map<string, RouteMatch>();
  byPath.set(route.path, { route, params: NO_PARAMS });
  literalRoutes.set(route.method, byPath);
}

/**
 * The route of the protocol's table for `method` and `path` (null: unknown path; `allowed`: a
 * known path with another method), as `findRoute` answers. A route without parameters that matches is always its answer (a literal
 * segment wins over a parameter), so those come from a map and only the rest scan the table.
 */
export function matchRoute(method: string, path: string): ReturnType<typeof findRoute> {
  const literal = literalRoutes.get(method === 'HEAD' ? 'GET' : method)?.get(path);
  return literal ?? findRoute(method, path);
}

function authorize(
  route: RouteDef,
  secret: string | null,
  tokens: BearerTokens,
  session: (() => Principal | null) | undefined,
): Principal | null {
  const auth = route.auth;
  if (auth.kind === 'public') return null;
  const viewer = secret === null ? (session?.() ?? null) : null;
  if (secret === null && viewer === null)
    throw new ApiError('unauthorized', 'this route needs Authorization: Bearer <token>');
  const principal = viewer ?? tokens.authenticate(secret!);
  if (principal === null)
    throw new ApiError('unauthorized', 'the bearer token is unknown, revoked or expired');
  if (principal.kind === 'publish' && auth.kind !== 'publish') {
    throw new ApiError(
      'unauthorized',
      'a publish token is accepted only by POST /v1/custom-objects/{id}/publish',
    );
  }
  switch (auth.kind) {
    case 'token':
      return principal;
    case 'owner':
      if (principal.kind === 'owner') return principal;
      throw new ApiError('forbidden', `${route.method} ${route.path} needs the owner token`);
    case 'scope':
      if (principal.kind === 'owner' || listCovers(principal.scopes, auth.scope)) return principal;
      throw new ApiError('scope_missing', `this token's scopes do not cover '${auth.scope}'`, {
        field: auth.scope,
        received: principal.scopes ?? [],
      });
    case 'node':
      if (principal.kind === 'node') return principal;
      throw new ApiError('forbidden', `${route.method} ${route.path} needs a node token`);
    case 'publish':
      return principal;
  }
}

/** The credentials of `Authorization: Bearer …` (RFC 6750 §2.1; the scheme is case-insensitive). */
function bearer(header: string | undefined): string | null {
  const match = header?.match(/^Bearer +(\S+) *$/i);
  return match?.[1] ?? null;
}
