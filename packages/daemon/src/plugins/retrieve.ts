import type { Plugin } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { PluginDeps } from './install.ts';

/** The installed plugin `name`; 404 when there is none. */
export function retrievePlugin({ store }: Pick<PluginDeps, 'store'>, name: string): Plugin {
  const row = store.plugins.get(name);
  if (row === undefined) throw new ApiError('not_found', `no plugin '${name}'`, { field: 'name' });
  return row;
}
