/**
 * Shares (docs/api-v1.md "Shares"): the owner, or an app holding `svc:files:share`, lets another
 * app reach one host path. While a share lives, the files routes treat the app's tokens as if
 * they held `svc:files:<mode>:user:<path>` (`filesScopes`), and every other rule of the files
 * check stays as it is: the realpath of the target must lie under the path, so no link leads
 * out. A share never exceeds its creator: an app must itself hold a files scope covering the
 * path at that mode, and its share grants only while the token that made it lives (revoked or
 * expired, the share is dead). Neither needs a timer: a dead share is never read back, so it
 * stops granting at once (and the next create forgets it).
 */
import type { Sight } from '../access/visibility.ts';
import type { EventLog } from '../events/log.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { createShare, type ShareCreateBody } from './create.ts';
import { deleteShare } from './delete.ts';
import { filesScopes } from './files-scopes.ts';
import { listShares } from './list.ts';

type ListQuery = Parameters<typeof listShares>[3];

export function shareService(store: Store, events: EventLog, now = () => Date.now()) {
  const deps = { store, events, now };
  return {
    create: (body: ShareCreateBody, principal: Principal) => createShare(deps, body, principal),
    list: (principal: Principal, sight: Sight, q: ListQuery) =>
      listShares(deps, principal, sight, q),
    delete: (id: string, principal: Principal, sight: Sight) =>
      deleteShare(deps, id, principal, sight),
    filesScopes: (principal: Principal) => filesScopes(deps, principal),
  };
}

export type ShareService = ReturnType<typeof shareService>;
