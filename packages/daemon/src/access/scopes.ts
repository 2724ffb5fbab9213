/**
 * A scope list a caller asks for, checked as a node's is (SPEC: "A token cannot create a node with
 * scopes outside its own ceiling"): parsed, legacy short names refused, inside the creator's
 * ceiling and the app's grant. Nodes use it for their scopes, profiles for their defaults.
 */
import { type Ceiling, listCovers, resolveNodeScopes, tryParseScope } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';

/** The canonical list (`null`: none asked, and the creator and grant have none either); or a 4xx. */
export function checkScopes(
  requested: readonly string[] | undefined,
  creator: Ceiling,
  grant: Ceiling = null,
  grantName?: string,
) {
  const result = resolveNodeScopes(requested, creator, grant, grantName);
  if (!result.ok) {
    throw new ApiError(result.code, result.message, {
      field: result.code === 'scope_missing' ? result.field : 'scopes',
      received: result.received,
    });
  }
  return result.scopes;
}

/**
 * 403 `scope_missing` (`field` the scope, `received` the caller's list) unless the owner, or a
 * token whose list covers `scope`: for a service that acts for a route gated by another scope
 * (a cron, gated by `svc:schedule`, creates nodes, which `svc:act` gates).
 */
export function requireScope(principal: Principal, scope: string, why: string): void {
  if (principal.kind === 'owner' || listCovers(principal.scopes, scope)) return;
  throw new ApiError('scope_missing', `${why}, which needs '${scope}'`, {
    field: scope,
    received: principal.scopes ?? [],
  });
}

/**
 * The apps a scope list names in `svc:<kind>:read:app:<id>`, each by its exact id: whose
 * conversations (nodes, runs, turns) or custom objects the holder may read.
 */
export function appsReadable(
  scopes: readonly string[],
  kind: 'conversations' | 'objects',
): string[] {
  const apps = new Set<string>();
  for (const scope of scopes) {
    const parsed = tryParseScope(scope);
    if (parsed.ok && parsed.scope.kind === kind) apps.add(parsed.scope.appId);
  }
  return [...apps];
}
