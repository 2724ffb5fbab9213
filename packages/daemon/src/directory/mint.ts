/** The two ways a directory token is minted: for a node's tool call, or for an app's or the owner's. */
import { isFinal, listCovers } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { DirectoryDeps } from './deps.ts';
import { directoryGroup } from './group.ts';
import { signDirectoryToken } from './sign.ts';

/** `broker.pluginToken.mint`: a token for one call of `plugin`'s `group` by node `nodeId`. */
export async function mintForNode(
  deps: DirectoryDeps,
  nodeId: string,
  plugin: string,
  group: string,
) {
  const { store, profiles } = deps;
  const node = store.nodes.get(nodeId);
  if (node === undefined) throw new ApiError('not_found', `no node ${nodeId}`);
  // A token acts for the node: one that ended acts for nothing any more.
  if (isFinal(node.state)) {
    throw new ApiError('invalid_state', `node ${nodeId} is ${node.state}; it calls no plugin`);
  }
  // The scope first, as `provider/call` checks it: a node refused any plugin it does not
  // hold learns nothing of which plugins are installed.
  const scope = `${plugin}:${group}`;
  const scopes = node.scopes;
  if (!listCovers(scopes, scope)) {
    // As every scope_missing of the daemon: the scope wanted, and the list that lacks it.
    throw new ApiError('scope_missing', `node ${nodeId} does not hold ${scope}`, {
      field: scope,
      received: scopes,
    });
  }
  const row = directoryGroup(store, plugin, group);
  // As the claim offers tools: the profile's list, when it has one, cuts them further.
  const allowed = profiles.find(node.profile)?.tools ?? null;
  if (allowed !== null && !allowed.includes(scope)) {
    throw new ApiError('forbidden', `profile ${node.profile} does not allow the tool ${scope}`, {
      field: 'group',
    });
  }
  const app = node.app_id ?? 'svc';
  return signDirectoryToken(deps, row.endpoint, scope, {
    grantee: app,
    client_id: 'svc',
    initiating_app: app,
    act: { sub: node.id },
    ...(node.run_id !== null && { run_id: node.run_id }),
  });
}

/**
 * `providers.call`: a token for one call of `plugin`'s `group` by an app, or the owner, with
 * no node between (no run). The caller's scopes are checked by the route. The app is the
 * grantee, the client and the actor; the owner is `svc`, as its nodes' grantee is. `act`
 * names the app rather than being left out: the spec's caller context requires it, and the
 * kit refuses a token without it (401); an app's name never looks like a node id (`nd_…`).
 */
export async function mintForCaller(
  deps: DirectoryDeps,
  appId: string | null,
  plugin: string,
  group: string,
) {
  const row = directoryGroup(deps.store, plugin, group);
  const app = appId ?? 'svc';
  return signDirectoryToken(deps, row.endpoint, `${plugin}:${group}`, {
    grantee: app,
    client_id: app,
    initiating_app: app,
    act: { sub: app },
  });
}
