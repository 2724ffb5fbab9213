import type { Plugin } from '@svc/protocol';
import type { PluginRow } from '../plugins/store.ts';
import type { Principal } from '../ports.ts';
import type { ProviderDeps } from './types.ts';

/**
 * A node token's profile and the tools it allows (`null`: all), or `null` for any other token:
 * a node calls here as its broker would, with its own profile's env store and tools cut.
 */
export function nodeProfile(
  deps: Pick<ProviderDeps, 'store' | 'profiles'>,
  principal: Principal,
): { name: string; tools: string[] | null } | null {
  if (principal.kind !== 'node' || principal.nodeId === null) return null;
  const name = deps.store.nodes.get(principal.nodeId)?.profile ?? 'default';
  return { name, tools: deps.profiles.find(name)?.tools ?? null };
}

/** Only a shared token is read from a profile, and only from one the caller may use (404). */
export function envStore(
  deps: Pick<ProviderDeps, 'profiles'>,
  profile: string,
  principal: Principal,
): Record<string, string> {
  deps.profiles.settings(profile, principal);
  return deps.profiles.envValues(profile);
}

/** An installed plugin's commands (parsed by the plugins' store). */
export function commandsOf(row: PluginRow): Plugin['commands'] {
  return row.commands;
}
