/**
 * `plugin.json`: what the installer reads to turn a plugin into tools. Every `rest.path` is the
 * full public path because the installer keeps only the endpoint's origin (SPEC, "Installing a
 * plugin").
 */
import { isAsyncGeneratorFunction } from '../is-object.ts';
import type { AuthMode, Manifest, PluginDefinition } from '../types.ts';

/** The schema a command without `input` accepts: any JSON object. */
export const ANY_OBJECT = { type: 'object' } as const;

/**
 * @param mount the public path before the plugin's routes, without a trailing slash ('' at root)
 * @param versioned whether routes carry `/v<N>` (the definition's `version`)
 */
export function buildManifest(
  def: PluginDefinition,
  mount: string,
  auth: AuthMode,
  versioned: boolean,
): Manifest {
  const base = `${mount}${versioned ? `/v${def.version}` : ''}/${def.name}`;
  const groups = Object.entries(def.groups);
  return {
    name: def.name,
    major: versioned ? (def.version ?? null) : null,
    description: def.description ?? '',
    auth,
    groups: groups.map(([name, group]) => ({
      name,
      description: group.description ?? '',
      scope: `${def.name}:${name}`,
    })),
    commands: groups.flatMap(([groupName, group]) =>
      Object.entries(group.commands).map(([name, command]) => ({
        group: groupName,
        name,
        description: command.description ?? '',
        input: command.input ?? ANY_OBJECT,
        streaming: command.streaming ?? isAsyncGeneratorFunction(command.handler),
        scope: `${def.name}:${groupName}`,
        rest: { method: 'POST' as const, path: `${base}/${groupName}/${name}` },
      })),
    ),
  };
}
