/**
 * `providers` (SPEC, resource map; docs/api-v1.md, "Providers"): the installed plugins' commands
 * as an app, or the owner, lists and calls them. A call is authenticated as a node's is
 * (services/plugin-call.ts does both): the shared token from a profile's env store, or a token
 * the daemon's directory signs for the caller. Which scope gates it is the same too:
 * `<provider>:<group>`, held by the caller's token.
 */
import { withDeps } from '../with-deps.ts';
import { callProvider } from './call.ts';
import { providerTools } from './tools.ts';
import type { ProviderDeps } from './types.ts';

export function providerService(deps: ProviderDeps) {
  return {
    tools: withDeps(deps, providerTools),
    call: withDeps(deps, callProvider),
  };
}

export type ProviderService = ReturnType<typeof providerService>;
