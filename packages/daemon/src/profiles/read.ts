import type { Principal } from '../ports.ts';
import { toDto, toSettings } from './dto.ts';
import type { Profile, ProfileDeps, ProfileSettings } from './types.ts';
import { actorOf, visibleRow } from './visibility.ts';

export function retrieveProfile(
  deps: Pick<ProfileDeps, 'store'>,
  name: string,
  principal: Principal,
): Profile {
  return toDto(deps, visibleRow(deps, name, principal));
}

/** The profiles `principal` sees, by name after `after`. */
export function listProfiles(
  deps: Pick<ProfileDeps, 'store'>,
  after: string,
  limit: number,
  principal: Principal,
): Profile[] {
  return deps.store.profiles.list(after, limit, actorOf(principal)).map((r) => toDto(deps, r));
}

/**
 * The settings nodes and model calls use, script included; 404 naming `field` when `principal`
 * may not see it (`null`: the daemon itself).
 */
export function profileSettings(
  deps: Pick<ProfileDeps, 'store'>,
  name: string,
  principal: Principal | null,
  field = 'profile',
): ProfileSettings {
  return toSettings(visibleRow(deps, name, principal, field));
}

/** The daemon's own read of a node's profile: `null` once it was removed, which cuts nothing. */
export function findProfile(
  deps: Pick<ProfileDeps, 'store'>,
  name: string,
): ProfileSettings | null {
  const r = deps.store.profiles.get(name);
  return r === undefined ? null : toSettings(r);
}
