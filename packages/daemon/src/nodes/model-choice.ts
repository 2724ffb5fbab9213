/**
 * What a new node runs as, chosen at create: its profile's settings, its model and the most
 * network its creator may give it.
 */
import type { NetworkPolicy } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { ProfileSettings } from '../profiles/types.ts';
import { profileNetworkWithin } from '../sandbox/network-grant.ts';
import type { NodeDeps } from './deps.ts';
import type { NodeRow, StoredModel } from './store/nodes.ts';

export function profileOf(
  deps: Pick<NodeDeps, 'profiles'>,
  name: string,
  explicit: boolean,
  principal: Principal,
): ProfileSettings | null {
  try {
    return deps.profiles.settings(name, principal);
  } catch (error) {
    // The default profile need not exist; a named one must.
    if (!explicit && error instanceof ApiError && error.code === 'not_found') return null;
    if (error instanceof ApiError && error.code === 'not_found') {
      throw new ApiError('not_found', `no profile '${name}'`, { field: 'profile' });
    }
    throw error;
  }
}

/**
 * body → the parent's (a child that names no profile runs as its parent does) → the owner's
 * per-profile override → the profile's → the configured default. A scripted parent's turns are
 * its own (a child replaying them would spawn again): its child takes the profile's model.
 */
export function chooseModel(
  deps: Pick<NodeDeps, 'models'>,
  body: { model?: StoredModel | undefined; profile?: string | undefined },
  profile: string,
  settings: ProfileSettings | null,
  parent: NodeRow | undefined,
): StoredModel {
  if (body.model !== undefined) return body.model;
  const inherited = parent !== undefined && body.profile === undefined ? parent.model : undefined;
  if (inherited !== undefined && inherited.provider !== 'scripted') {
    return { provider: inherited.provider, model: inherited.model };
  }
  const config = deps.models.config();
  const chosen =
    config.profiles[profile] ?? (settings?.model as StoredModel | null) ?? config.default;
  if (chosen === null || chosen === undefined) {
    if (inherited !== undefined) {
      throw new ApiError(
        'invalid_request',
        `the parent's 'scripted' turns are its own and profile '${profile}' has no model: give the child a model, e.g. spawn's model {provider: 'scripted', model, script: [turns]}`,
        { field: 'model' },
      );
    }
    throw new ApiError(
      'invalid_request',
      `no model: name one in 'model', give profile '${profile}' one, or set a default with svc models config set`,
      { field: 'model' },
    );
  }
  return chosen as StoredModel;
}

/** The most network `principal` may give a node it makes; `null`: any (the owner). */
export function creatorNetwork(
  deps: Pick<NodeDeps, 'store' | 'profiles'>,
  principal: Principal,
): NetworkPolicy | null {
  if (principal.kind === 'owner') return null;
  if (principal.kind !== 'node' || principal.nodeId === null) return 'none';
  const own = deps.store.nodes.get(principal.nodeId);
  if (own?.network != null) return own.network;
  if (own === undefined) return 'none';
  try {
    return deps.profiles.settings(own.profile, null).network ?? 'none';
  } catch {
    return 'none'; // its profile is gone: nothing to give
  }
}

/**
 * What a node made by `principal` on profile `name` keeps on its row as its network when its
 * create names none (`creator`: what `principal` may give, `creatorNetwork`). `null` follows the
 * profile as it is now (or the daemon's default): for the owner's nodes, where the profile sets
 * none, and for an app's nodes on the app's own profile, whose network only the person sets
 * (`PUT /v1/profiles`), for that app's nodes. Else the profile's network cut to `creator`
 * (`profileNetworkWithin`): an app naming the owner's profile, or a node whatever it names,
 * reaches no more than naming the network would let it.
 */
export function networkFromProfile(
  deps: Pick<NodeDeps, 'profiles'>,
  principal: Principal,
  name: string,
  creator: NetworkPolicy | null,
): NetworkPolicy | null {
  let profile: ProfileSettings;
  try {
    profile = deps.profiles.settings(name, null);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
  if (principal.kind === 'app' && profile.app_id === principal.appId) return null;
  return profileNetworkWithin(profile.network, creator);
}
