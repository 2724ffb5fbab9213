import { findRoute, listCovers, type RouteDef, type RouteMatch, routes } from '@svc/protocol';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.ts';
import type { Principal, TokenService } from '../services/tokens.ts';
import type { AppEnv } from './env.ts';
import { errorResponse } from './errors.ts';

/**
 * Resolves the route from the protocol's table (unknown path → 404, known path with another
 * method → 405 with `Allow`), then applies its `auth`: public, any token, owner only, a scope
 * the token's list must cover, or a node token.
 */
export function routeAuth(tokens: TokenService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const match = matchRoute(c.req.method, c.req.path);
    if (match === null) {
      return errorResponse(c, new ApiError('not_found', `no route ${c.req.method} ${c.req.path}`));
    }
    if ('allowed' in match) {
      const allow = match.allowed.join(', ');
      const error = new ApiError(
        'method_not_allowed',
        `${c.req.path} allows ${allow}, not ${c.req.method}`,
      );
      return errorResponse(c, error, { Allow: allow });
    }
    c.set('route', match.route);
    const principal = authorize(match.route, bearer(c.req.header('authorization')), tokens);
    // A node token acts on node routes for its own node only: another node's broker routes, mail
    // and waits would make it a second writer of that node's conversation.
    if (match.route.auth.kind === 'node' && principal?.nodeId !== match.params.id) {
      throw new ApiError(
        'forbidden',
        `a node token may call ${match.route.path} only for its own node`,
      );
    }
    c.set('principal', principal);
    c.set('input', {
      params: match.params,
      query: undefined,
      body: undefined,
      raw: new Uint8Array(),
    });
    await next();
  };
}

/** No path parameters: shared by every match of a literal route, never written to. */
const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The routes without parameters by `METHOD path`: most requests, looked up without a scan. */
const literalRoutes = new Map(
  routes
    .filter((route) => !route.path.includes('{'))
    .map((route): [string, RouteMatch] => [
      `${route.method} ${route.path}`,
      { route, params: NO_PARAMS },
    ]),
);

/**
 * `findRoute`'s answer. A route without parameters that matches is always its answer (a literal
 * segment wins over a parameter), so those come from a map and only the rest scan the table.
 */
function matchRoute(method: string, path: string): ReturnType<typeof findRoute> {
  const literal = literalRoutes.get(`${method === 'HEAD' ? 'GET' : method} ${path}`);
  return literal ?? findRoute(method, path);
}

function authorize(route: RouteDef, secret: string | null, tokens: TokenService): Principal | null {
  const auth = route.auth;
  if (auth.kind === 'public') return null;
  if (secret === null)
    throw new ApiError('unauthorized', 'this route needs Authorization: Bearer <token>');
  const principal = tokens.authenticate(secret);
  if (principal === null)
    throw new ApiError('unauthorized', 'the bearer token is unknown, revoked or expired');
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
  }
}

/** The credentials of `Authorization: Bearer …` (RFC 6750 §2.1; the scheme is case-insensitive). */
function bearer(header: string | undefined): string | null {
  const match = header?.match(/^Bearer +(\S+) *$/i);
  return match?.[1] ?? null;
}
