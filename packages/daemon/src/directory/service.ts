/**
 * The daemon as the directory of its locally installed plugins (DESIGN §5, "Directory"): a token
 * per call of a directory-mode plugin, for the one group the caller's scopes cover, signed with
 * the directory key. The caller is a node (its broker's tool: `act` names the node) or an app or
 * the owner calling through `POST /v1/provider/call` (`act` names the app; no run). `iss` is the
 * TCP listener's base URL, where a plugin fetches `/.well-known/jwks.json`; `aud` is the plugin's
 * endpoint exactly as it was installed, which is the `audience` its handler must be given.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { isFinal, listCovers } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { TcpInfo } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { Store } from '../store/index.ts';
import type { DirectoryKeys } from './keys.ts';

/** DESIGN §5: `exp` at most 5 min after issue. */
const TOKEN_SECONDS = 300;

export function directoryService(deps: {
  store: Store;
  keys: DirectoryKeys;
  tcp: () => TcpInfo | null;
  profiles: Pick<ProfileService, 'find'>;
}) {
  const { store, keys, tcp, profiles } = deps;
  // The person whose daemon this is: the account it runs under.
  const person = safeUserName();

  /** The installed directory-mode plugin `plugin` and the scope of its group `group`. */
  function directoryGroup(plugin: string, group: string) {
    const row = store.plugins.get(plugin);
    if (row === undefined) {
      throw new ApiError('not_found', `no plugin '${plugin}'`, { field: 'plugin' });
    }
    if (row.auth !== 'directory') {
      throw new ApiError(
        'invalid_request',
        `plugin ${plugin} takes auth ${row.auth}, not directory tokens`,
        { field: 'plugin' },
      );
    }
    const groups = row.groups;
    if (!groups.some((g) => g.name === group)) {
      throw new ApiError('not_found', `plugin ${plugin} has no group '${group}'`, {
        field: 'group',
      });
    }
    return row;
  }

  /**
   * The signed token: `iss` the TCP listener (where the JWKS is), `aud` the endpoint as
   * installed, `sub` the person, a fresh `jti`, `exp` within 5 min; `claims` say who calls.
   */
  async function sign(
    audience: string,
    scope: string,
    claims: {
      grantee: string;
      client_id: string;
      initiating_app: string;
      act: { sub: string };
      run_id?: string;
    },
  ) {
    const listener = tcp();
    if (listener === null) {
      throw new ApiError(
        'invalid_state',
        "the daemon's directory is served on its TCP listener, which is off: turn it on with svc sys connect, or svc daemon start --tcp HOST:PORT",
      );
    }
    const now = Math.floor(Date.now() / 1000);
    const token = await keys.sign({
      iss: listener.base_url,
      aud: audience,
      sub: person,
      ...claims,
      scope,
      jti: randomUUID(),
      iat: now,
      exp: now + TOKEN_SECONDS,
    });
    return { token, expires_at: new Date((now + TOKEN_SECONDS) * 1000).toISOString() };
  }

  return {
    jwks: () => keys.jwks(),

    /** `directory.keys.list` */
    keys: async () => ({ keys: await keys.list() }),

    /** `directory.keys.rotate`: a new signing key; the replaced one retires or, revoked, goes. */
    rotate: async (revokePrevious: boolean) => ({ keys: await keys.rotate({ revokePrevious }) }),

    /** `broker.pluginToken.mint`: a token for one call of `plugin`'s `group` by node `nodeId`. */
    async mint(nodeId: string, plugin: string, group: string) {
      const node = store.nodes.get(nodeId);
      if (node === undefined) throw new ApiError('not_found', `no node ${nodeId}`);
      // A token acts for the node: one that ended acts for nothing any more.
      if (isFinal(node.state)) {
        throw new ApiError('invalid_state', `node ${nodeId} is ${node.state}; it calls no plugin`);
      }
      // The scope first, as `provider/call` checks it: a node refused any plugin it does not
      // hold learns nothing of which plugins are installed.
      const scope = `${plugin}:${group}`;
      const { scopes } = node;
      if (!listCovers(scopes, scope)) {
        // As every scope_missing of the daemon: the scope wanted, and the list that lacks it.
        throw new ApiError('scope_missing', `node ${nodeId} does not hold ${scope}`, {
          field: scope,
          received: scopes,
        });
      }
      const row = directoryGroup(plugin, group);
      // As the claim offers tools: the profile's list, when it has one, cuts them further.
      const allowed = profiles.find(node.profile)?.tools ?? null;
      if (allowed !== null && !allowed.includes(scope)) {
        throw new ApiError(
          'forbidden',
          `profile ${node.profile} does not allow the tool ${scope}`,
          { field: 'group' },
        );
      }
      const app = node.app_id ?? 'svc';
      return sign(row.endpoint, scope, {
        grantee: app,
        client_id: 'svc',
        initiating_app: app,
        act: { sub: node.id },
        ...(node.run_id !== null && { run_id: node.run_id }),
      });
    },

    /**
     * `providers.call`: a token for one call of `plugin`'s `group` by an app, or the owner, with
     * no node between (no run). The caller's scopes are checked by the route. The app is the
     * grantee, the client and the actor; the owner is `svc`, as its nodes' grantee is. `act`
     * names the app rather than being left out: the spec's caller context requires it, and the
     * kit refuses a token without it (401); an app's name never looks like a node id (`nd_…`).
     */
    async mintForCaller(appId: string | null, plugin: string, group: string) {
      const row = directoryGroup(plugin, group);
      const app = appId ?? 'svc';
      return sign(row.endpoint, `${plugin}:${group}`, {
        grantee: app,
        client_id: app,
        initiating_app: app,
        act: { sub: app },
      });
    },
  };
}

export type DirectoryService = ReturnType<typeof directoryService>;

function safeUserName(): string {
  try {
    return userInfo().username || 'owner';
  } catch {
    return 'owner';
  }
}
