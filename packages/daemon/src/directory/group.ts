import { ApiError } from '../errors.ts';
import type { Store } from '../store/index.ts';

/** The installed directory-mode plugin `plugin` and the scope of its group `group`. */
export function directoryGroup(store: Pick<Store, 'plugins'>, plugin: string, group: string) {
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
