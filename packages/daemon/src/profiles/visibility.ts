import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { ProfileRow } from './store.ts';
import type { ProfileDeps } from './types.ts';

/**
 * Whose profiles a caller sees: the owner (and the owner's nodes) every one; an app, and the
 * nodes of its runs, the owner's and its own. Others answer 404, as if they did not exist.
 */
export function actorOf(principal: Principal): string | null {
  return principal.kind === 'owner' ? null : principal.appId;
}

export function visible(row: ProfileRow, actor: string | null): boolean {
  return actor === null || row.app_id === null || row.app_id === actor;
}

/** The profile `name` as `principal` may see it (`null`: the daemon itself); 404 naming `field`. */
export function visibleRow(
  deps: Pick<ProfileDeps, 'store'>,
  name: string,
  principal: Principal | null,
  field = 'name',
): ProfileRow {
  const found = deps.store.profiles.get(name);
  if (found === undefined || (principal !== null && !visible(found, actorOf(principal)))) {
    throw new ApiError('not_found', `no profile '${name}'`, { field });
  }
  return found;
}
