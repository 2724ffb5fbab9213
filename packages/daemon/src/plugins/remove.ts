import type { Plugin } from '@svc/protocol';
import type { PluginDeps } from './install.ts';
import { retrievePlugin } from './retrieve.ts';
import { summary } from './summary.ts';

/** `DELETE /v1/plugins/{name}`: answers what was removed. */
export function removePlugin(deps: PluginDeps, name: string): Plugin {
  const { store, events } = deps;
  return store.db.transaction(() => {
    const dto = retrievePlugin(deps, name);
    store.plugins.remove(name);
    events.record('plugin.removed', name, summary(dto));
    return dto;
  });
}
