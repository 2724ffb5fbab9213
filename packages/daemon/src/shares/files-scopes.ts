import type { Scope } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import type { ShareDeps } from './deps.ts';
import { shareScope } from './share-scope.ts';

/**
 * The files scopes a caller holds for the files routes: its token's list, plus, for an app
 * token, the scope of every live share made to its app, each once. The owner's `null` stays
 * everything.
 */
export function filesScopes(
  { store, now }: Pick<ShareDeps, 'store' | 'now'>,
  principal: Principal,
): readonly Scope[] | null {
  const own = principal.scopes;
  if (own === null || principal.kind !== 'app' || principal.appId === null) return own;
  const granted = store.shares.grantedTo(principal.appId, new Date(now()).toISOString());
  return granted.length === 0 ? own : [...new Set([...own, ...granted.map(shareScope)])];
}
