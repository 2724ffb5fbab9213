import type { Scope } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { SandboxService } from '../sandbox/service.ts';
import type { Store } from '../store/index.ts';
import type { Confinement } from './run.ts';

/** What deciding a caller's sandbox reads. */
export interface ConfinementDeps {
  store: Pick<Store, 'nodes'>;
  sandbox: Pick<SandboxService, 'forNode' | 'forToken' | 'tokenSession'>;
  /** The caller's files scopes with the live shares made to its app (`null`: every path). */
  shares: { filesScopes(principal: Principal): readonly Scope[] | null };
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
  const scopes = deps.shares.filesScopes(principal);
  if (scopes === null) return null;
  const plan = deps.sandbox.forToken(scopes, principal.appId);
  return { plan, session: () => deps.sandbox.tokenSession(principal.tokenId, plan) };
}
