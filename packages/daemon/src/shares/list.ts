import { appOf } from '../access/app-caller.ts';
import type { Sight } from '../access/visibility.ts';
import type { Principal } from '../ports.ts';
import type { ShareDeps } from './deps.ts';
import { toShare } from './share-scope.ts';
import type { Share } from './store.ts';

/** Live shares, newest first: the owner's every one, an app's those made to it or by it. */
export function listShares(
  { store, now }: ShareDeps,
  principal: Principal,
  sight: Sight,
  q: { appId?: string | undefined; before?: string | undefined; limit: number },
): Share[] {
  appOf(principal, 'shares');
  const at = new Date(now()).toISOString();
  return store.shares
    .list({ sight, appId: q.appId, before: q.before, limit: q.limit, now: at })
    .map(toShare);
}
