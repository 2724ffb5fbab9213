import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import { withDeps } from '../with-deps.ts';
import { ensureProfile } from './ensure.ts';
import { deleteProfileEnv, profileEnvValues, setProfileEnv } from './env.ts';
import { findProfile, listProfiles, profileSettings, retrieveProfile } from './read.ts';
import type { ProfileDeps } from './types.ts';

/** Profiles and their env stores, as the object the rest of the daemon calls. */
export function profileService(store: Store, events: EventLog) {
  const listeners = new Set<(name: string) => void>();
  const deps: ProfileDeps = {
    store,
    events,
    changed: (name) => {
      for (const listener of listeners) listener(name);
    },
  };
  return {
    /**
     * Calls `listener` after each committed change to a profile's settings or env store (its
     * name): the supervisor makes its running nodes' sandboxes again (`../supervisor/reconfine.ts`).
     */
    onChange(listener: (name: string) => void): void {
      listeners.add(listener);
    },
    ensure: withDeps(deps, ensureProfile),
    retrieve: withDeps(deps, retrieveProfile),
    list: withDeps(deps, listProfiles),
    setEnv: withDeps(deps, setProfileEnv),
    deleteEnv: withDeps(deps, deleteProfileEnv),
    settings: withDeps(deps, profileSettings),
    find: withDeps(deps, findProfile),
    envValues: withDeps(deps, profileEnvValues),
  };
}

export type ProfileService = ReturnType<typeof profileService>;
