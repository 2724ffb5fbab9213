/** The plugin registry (DESIGN §5, "Plugin install"), as the routes and the daemon call it. */
import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import { type InstallBody, installPlugin } from './install.ts';
import { removePlugin } from './remove.ts';
import { retrievePlugin } from './retrieve.ts';

export function pluginService(store: Pick<Store, 'db' | 'plugins'>, events: EventLog) {
  const deps = { store, events };
  return {
    install: (body: InstallBody) => installPlugin(deps, body),
    /** By name after `after`, at most `limit`. */
    list: (after: string, limit: number) => store.plugins.list(after, limit),
    retrieve: (name: string) => retrievePlugin(deps, name),
    remove: (name: string) => removePlugin(deps, name),
  };
}

export type PluginService = ReturnType<typeof pluginService>;
