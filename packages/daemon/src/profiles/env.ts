import { ApiError } from '../errors.ts';
import { toDto } from './dto.ts';
import type { Profile, ProfileDeps } from './types.ts';
import { visibleRow } from './visibility.ts';

/**
 * A profile's env store. A value goes in through `setProfileEnv` and out only through
 * `profileEnvValues` (a broker's launch): no answer, event or log line carries one.
 */

/** Stores an env value (owner only, checked by the route); answers the names only. */
export function setProfileEnv(
  deps: ProfileDeps,
  name: string,
  variable: string,
  value: string,
): Profile {
  const { store, events } = deps;
  return store.db.transaction((afterCommit) => {
    visibleRow(deps, name, null);
    store.profiles.setEnv(name, variable, value, new Date().toISOString());
    events.record('profile.env.set', name, { profile: name, name: variable });
    afterCommit(() => deps.changed?.(name));
    return toDto(deps, visibleRow(deps, name, null));
  });
}

export function deleteProfileEnv(deps: ProfileDeps, name: string, variable: string): Profile {
  const { store, events } = deps;
  return store.db.transaction((afterCommit) => {
    visibleRow(deps, name, null);
    if (!store.profiles.deleteEnv(name, variable, new Date().toISOString())) {
      throw new ApiError('not_found', `profile '${name}' has no env variable ${variable}`, {
        field: 'var',
      });
    }
    events.record('profile.env.deleted', name, { profile: name, name: variable });
    afterCommit(() => deps.changed?.(name));
    return toDto(deps, visibleRow(deps, name, null));
  });
}

/** The env values, for a broker's launch message only. */
export function profileEnvValues(
  deps: Pick<ProfileDeps, 'store'>,
  name: string,
): Record<string, string> {
  return deps.store.profiles.envValues(name);
}
