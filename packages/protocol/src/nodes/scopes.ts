/**
 * A new node's scope list (SPEC "Node scope list and bearer ceiling", DESIGN §5):
 * - omitted → the creator's ceiling (for the owner, `null`: the whole runtime vocabulary, or
 *   inside a run the app's grant), which must itself lie inside the grant;
 * - supplied → parsed and canonicalized (`parseScopeList`: `svc:act` needs `svc:llm`), then it
 *   must lie inside every ceiling: the creator's and, for a run, the app's grant. The first
 *   scope outside one is refused with 403 `scope_missing`, naming it in `field` and the
 *   ceiling in `received`.
 */
import { ceilingViolation } from '../scopes/covers.ts';
import { parseScopeList } from '../scopes/list.ts';
import type { Scope } from '../scopes/parse.ts';
import { ScopeError } from '../scopes/scope-error.ts';

/** A scope list that bounds another; `null` is the owner's: everything. */
export type Ceiling = readonly Scope[] | null;

export type NodeScopesResult =
  | { ok: true; scopes: Scope[] | null }
  | { ok: false; code: 'invalid_request'; message: string; field: string; received: string }
  | { ok: false; code: 'scope_missing'; message: string; field: Scope; received: Ceiling };

/** @param grantName how refusals name `grant` (a fork's is the forked node's list) */
export function resolveNodeScopes(
  requested: readonly string[] | undefined,
  creator: Ceiling,
  grant: Ceiling = null,
  grantName = "the app's grant",
): NodeScopesResult {
  if (requested === undefined) {
    // The owner (null) creating inside an app's grant inherits the grant. Any other creator's
    // list is checked as if asked for: another token of the same app may hold more than the
    // grant of the run it creates into.
    if (creator === null) return { ok: true, scopes: grant === null ? null : [...grant] };
    return resolveNodeScopes(creator, creator, grant, grantName);
  }
  let scopes: Scope[];
  try {
    scopes = parseScopeList(requested);
  } catch (error) {
    if (!(error instanceof ScopeError)) throw error;
    return {
      ok: false,
      code: 'invalid_request',
      message: error.reason,
      field: 'scopes',
      received: error.scope,
    };
  }
  for (const [ceiling, whose] of [
    [creator, "the creator's ceiling"],
    [grant, grantName],
  ] as const) {
    const outside = ceilingViolation(ceiling, scopes);
    if (outside !== null) {
      return {
        ok: false,
        code: 'scope_missing',
        message: `scope '${outside}' is outside ${whose}`,
        field: outside,
        received: ceiling,
      };
    }
  }
  return { ok: true, scopes };
}
