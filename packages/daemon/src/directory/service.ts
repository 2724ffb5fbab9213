/**
 * The daemon as the directory of its locally installed plugins (DESIGN §5, "Directory"): a token
 * per call of a directory-mode plugin, for the one group the caller's scopes cover, signed with
 * the directory key. The caller is a node (its broker's tool: `act` names the node) or an app or
 * the owner calling through `POST /v1/provider/call` (`act` names the app; no run). `iss` is the
 * TCP listener's base URL, where a plugin fetches `/.well-known/jwks.json`; `aud` is the plugin's
 * endpoint exactly as it was installed, which is the `audience` its handler must be given.
 */
import type { DirectoryDeps } from './deps.ts';
import { mintForCaller, mintForNode } from './mint.ts';

export function directoryService(deps: DirectoryDeps) {
  const { keys } = deps;
  return {
    jwks: () => keys.jwks(),
    /** `directory.keys.list` */
    keys: async () => ({ keys: await keys.list() }),
    /** `directory.keys.rotate`: a new signing key; the replaced one retires or, revoked, goes. */
    rotate: async (revokePrevious: boolean) => ({ keys: await keys.rotate({ revokePrevious }) }),
    mint: (nodeId: string, plugin: string, group: string) =>
      mintForNode(deps, nodeId, plugin, group),
    mintForCaller: (appId: string | null, plugin: string, group: string) =>
      mintForCaller(deps, appId, plugin, group),
  };
}

export type DirectoryService = ReturnType<typeof directoryService>;
