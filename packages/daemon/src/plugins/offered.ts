import { type BrokerPlugin, pluginToolName } from '@svc/protocol';
import type { PluginRow } from './store.ts';

/**
 * What a broker's claim offers of the installed plugins: the `<plugin>:<group>` tool names to cut
 * by scopes and the profile's list, and, once cut, the plugins with the commands of the groups
 * kept. Only the commands agents are offered count (`pluginToolName`: none whose name is too long).
 */
export function offeredPlugins(rows: readonly PluginRow[]): {
  groups: string[];
  keep(tools: readonly string[]): BrokerPlugin[];
} {
  const plugins = rows.flatMap((row) => {
    const commands = row.commands.filter((command) => pluginToolName(command) !== null);
    if (commands.length === 0) return [];
    return [
      { name: row.name, origin: row.origin, auth: row.auth, auth_env: row.auth_env, commands },
    ];
  });
  return {
    groups: plugins.flatMap(({ commands }) => [...new Set(commands.map((c) => c.scope))]),
    keep: (tools) =>
      plugins
        .map((plugin) => ({
          ...plugin,
          commands: plugin.commands.filter((command) => tools.includes(command.scope)),
        }))
        .filter((plugin) => plugin.commands.length > 0),
  };
}
