import type { Scope } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { SandboxService } from '../sandbox/service.ts';
import type { Store } from '../store/index.ts';
import type { TokenService } from '../tokens/service.ts';
import type { Confinement } from './run.ts';

/** What deciding a caller's sandbox reads. */
export interface ConfinementDeps {
  store: Pick<Store, 'nodes'>;
  sandbox: Pick<SandboxService, 'forNode' | 'forToken' | 'tokenSession'>;
  /** The caller's files scopes with the live shares made to its app (`null`: every path). */
  shares: { filesScopes(principal: Principal): readonly Scope[] | null };
  tokens: Pick<TokenService, 'stillLive'>;
}

/**
 * Who the command runs for decides its sandbox (docs/security.md, "The sandbox"): the owner's
 * token is the person, unconfined; a node's token is that node, in the sandbox its own `bash`
 * tool runs in; any other token with a scope list gets one built from its files scopes (and
 * the live shares made to its app, as the files routes grant them).
 */
export function confinementOf(deps: ConfinementDeps, principal: Principal): Confinement {
  if (principal.kind === 'node') {
    const row = deps.store.nodes.get(principal.nodeId!);
    if (row === undefined) throw new ApiError('unauthorized', 'the node of this token is gone');
    return { plan: deps.sandbox.forNode(row) };
  }
  const plan = tokenPlan(deps, principal);
  if (plan === null) return null;
  // Its sandbox outlives the command (what it left running in the background): it ends once
  // the token is revoked or expires, or a share ending (or expiring) changes what it may see.
  const current = () => (deps.tokens.stillLive(principal) ? tokenPlan(deps, principal) : null);
  return { plan, session: () => deps.sandbox.tokenSession(principal.tokenId, plan, current) };
}

function tokenPlan(deps: ConfinementDeps, principal: Principal) {
  const scopes = deps.shares.filesScopes(principal);
  return scopes === null ? null : deps.sandbox.forToken(scopes, principal.appId);
}
